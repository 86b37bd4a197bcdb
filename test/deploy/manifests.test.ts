// The Kubernetes recipe (deploy/kubernetes) against the Kubernetes API's JSON schemas, offline: the
// schemas ship inside the kubernetes-models package, so nothing is fetched at validation time.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigMap, Service } from 'kubernetes-models/v1';
import { Deployment } from 'kubernetes-models/apps/v1';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { OPTIONS } from '../../src/config.js';
import { packageRoot } from '../../src/paths.js';

const dir = path.join(packageRoot(), 'deploy', 'kubernetes');
const files = readdirSync(dir).filter((f) => f.endsWith('.yaml'));
const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  'v1/ConfigMap': ConfigMap as never,
  'v1/Service': Service as never,
  'apps/v1/Deployment': Deployment as never,
};

interface Doc {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  [key: string]: unknown;
}
const docs: (Doc & { file: string })[] = files
  .filter((f) => f !== 'kustomization.yaml')
  .flatMap((file) =>
    parseAllDocuments(readFileSync(path.join(dir, file), 'utf8')).map((d) => {
      expect(d.errors, file).toEqual([]);
      return { ...(d.toJS() as Doc), file };
    }),
  );
const find = (kind: string, name: string) => docs.find((d) => d.kind === kind && d.metadata.name === name)!;

describe('deploy/kubernetes', () => {
  it.each(docs.map((d) => [`${d.file}: ${d.kind} ${d.metadata.name}`, d] as const))(
    '%s is valid against the Kubernetes schema',
    (_name, doc) => {
      const Model = MODELS[`${doc.apiVersion}/${doc.kind}`];
      expect(Model, `no schema for ${doc.apiVersion} ${doc.kind}`).toBeDefined();
      const { file: _file, ...data } = doc;
      expect(() => new Model!(data as never).validate()).not.toThrow();
    },
  );

  it('rejects a broken manifest (the validator is not a no-op)', () => {
    const deployment = structuredClone(find('Deployment', 'mockyard')) as unknown as { spec: { replicas: unknown } };
    deployment.spec.replicas = 'three';
    expect(() => new Deployment(deployment as never).validate()).toThrow();
  });

  it('lists every manifest in the kustomization', () => {
    const kustomization = readFileSync(path.join(dir, 'kustomization.yaml'), 'utf8');
    for (const file of files.filter((f) => f !== 'kustomization.yaml')) expect(kustomization).toContain(`- ${file}`);
  });

  it('probes health on the port mockyard listens on, and mounts scenarios and config from ConfigMaps', () => {
    const deployment = new Deployment(find('Deployment', 'mockyard') as never);
    const pod = deployment.spec!.template.spec!;
    const container = pod.containers[0]!;
    const env = Object.fromEntries((container.env ?? []).map((e) => [e.name, e.value]));
    const http = container.ports!.find((p) => p.name === 'http')!;
    expect(String(http.containerPort)).toBe(env.MOCKYARD_PORT);
    expect(env.MOCKYARD_HOST).toBe('0.0.0.0');
    for (const probe of [container.readinessProbe, container.livenessProbe, container.startupProbe]) {
      expect(probe?.httpGet).toMatchObject({ path: '/__mockyard/health', port: 'http' });
    }
    expect(container.resources?.requests?.memory).toBeDefined();
    expect(container.resources?.limits?.memory).toBeDefined();

    const mounts = Object.fromEntries((container.volumeMounts ?? []).map((m) => [m.name, m.mountPath]));
    const volumes = Object.fromEntries(pod.volumes!.map((v) => [v.name, v.configMap?.name]));
    expect(mounts.scenarios).toBe(env.MOCKYARD_SCENARIOS_DIR);
    expect(find('ConfigMap', volumes.scenarios!)).toBeDefined();
    const configFile = container.args![container.args!.indexOf('--config') + 1]!;
    expect(path.dirname(configFile)).toBe(mounts.config);
    const config = find('ConfigMap', volumes.config!) as unknown as { data: Record<string, string> };
    const fileOptions = JSON.parse(config.data[path.basename(configFile)]!) as Record<string, unknown>;
    const keys = OPTIONS.map((o) => o.key as string);
    for (const key of Object.keys(fileOptions)) expect(keys).toContain(key);

    const service = find('Service', 'mockyard') as unknown as {
      spec: { selector: Record<string, string>; ports: { targetPort: string }[] };
    };
    expect(service.spec.selector).toEqual(deployment.spec!.selector.matchLabels);
    expect(service.spec.ports[0]!.targetPort).toBe('http');
  });
});
