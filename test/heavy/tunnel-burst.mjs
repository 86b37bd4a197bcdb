// Opens CONNECT tunnels to the given names at once, each followed by a TLS handshake trusting mockyard's CA,
// and prints their statuses as JSON. It runs as a process of its own, so the 1,000 client handshakes do not
// share a process with the test's health probe: the probe then measures the server, not its own client.
import { readFileSync } from 'node:fs';
import net from 'node:net';
import tls from 'node:tls';

const [port, caFile, namesJson] = process.argv.slice(2);
const ca = readFileSync(caFile, 'utf8');

/** CONNECT to `host:443`; on 200, a TLS handshake for `host`. Resolves with the status. */
function tunnel(host) {
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), '127.0.0.1', () =>
      socket.write(`CONNECT ${host}:443 HTTP/1.1\r\nHost: ${host}:443\r\n\r\n`),
    );
    socket.on('error', (err) => resolve(`error ${err.message}`));
    socket.once('data', (chunk) => {
      const status = /^HTTP\/1\.1 (\d{3})/.exec(chunk.toString('latin1'))?.[1] ?? 'garbled';
      if (status !== '200') {
        socket.destroy();
        return resolve(status);
      }
      const secure = tls.connect({ socket, servername: host, ca }, () => {
        secure.destroy();
        resolve('200');
      });
      secure.on('error', (err) => resolve(`tls ${err.message}`));
    });
  });
}

const statuses = await Promise.all(JSON.parse(readFileSync(namesJson, 'utf8')).map(tunnel));
process.stdout.write(JSON.stringify(statuses));
