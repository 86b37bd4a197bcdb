// What `mockyard ca` prints: where the CA certificate is and how each kind of client is told to trust it.

export function trustInstructions(certPath: string, proxyUrl: string): string {
  const q = /^[\w./-]+$/.test(certPath) ? certPath : `'${certPath.replace(/'/g, `'\\''`)}'`;
  return `${certPath}

mockyard's local certificate authority signs the certificates it presents for archive.org,
api.appcenter.ms and the other real hosts (through the proxy and on --tls-port). Trust it only
where you test; mockyard never installs it anywhere itself.

  Node.js            export NODE_EXTRA_CA_CERTS=${q}
  Python requests    export REQUESTS_CA_BUNDLE=${q}   (the ia CLI, most Python clients)
  curl               curl --cacert ${q} ...
  OS store (Debian/Ubuntu, as root):
                     cp ${q} /usr/local/share/ca-certificates/mockyard-ca.crt && update-ca-certificates
  OS store (Fedora/RHEL, as root):
                     cp ${q} /etc/pki/ca-trust/source/anchors/mockyard-ca.pem && update-ca-trust
  OS store (macOS):  sudo security add-trusted-cert -d -r trustRoot -k /Library/Keychains/System.keychain ${q}
  OS store (Windows, as administrator):
                     certutil -addstore -f ROOT ${q}

Then send clients through the proxy, e.g. HTTPS_PROXY=${proxyUrl} (see README, "Use the real host names").
`;
}
