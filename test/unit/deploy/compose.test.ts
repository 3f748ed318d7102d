import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseListenAddress } from '../../../src/config/addresses.js';
import { loadConfig } from '../../../src/config/load.js';
import {
  commandArgs,
  dependencies,
  durationSeconds,
  imageProblem,
  interpolate,
  loadCompose,
  MissingVariableError,
  mounts,
  parseImageReference,
  portMappings,
  rawEnvironment,
  readYaml,
  repoPath,
  resolvedEnvironment,
  variableReferences,
  type ComposeService,
} from './support/compose.js';
import { envOf, parseDockerfile } from './support/dockerfile.js';
import { variablesTheGatewayReads } from './support/source.js';

const compose = loadCompose();
const services = compose.services;
const gateway = services.gateway as ComposeService;
const dockerfile = parseDockerfile(readFileSync(repoPath('Dockerfile'), 'utf8'));
const imageEnv = envOf(dockerfile.stages.at(-1) ?? { base: '', name: null, instructions: [] });

/** Variables the compose file refuses to start without (`${NAME:?…}`). */
const required = [
  ...new Set(
    Object.values(services).flatMap((service) =>
      Object.values(rawEnvironment(service)).flatMap((value) =>
        variableReferences(value)
          .filter((reference) => reference.operator === ':?' || reference.operator === '?')
          .map((reference) => reference.name),
      ),
    ),
  ),
].sort();

/** What a user's .env holds: every required variable, with values of the right shape. */
const userEnv: Record<string, string> = Object.fromEntries(
  required.map((name) => [
    name,
    name === 'GATEWAY_MASTER_KEY' ? randomBytes(32).toString('hex') : randomBytes(20).toString('hex'),
  ]),
);

/** The gateway container's environment: the image's ENV overridden by compose's environment. */
const gatewayEnv = { ...imageEnv, ...resolvedEnvironment(gateway, userEnv) };
const config = loadConfig(gatewayEnv, repoPath('config/default.json'));

function publishedPort(service: ComposeService, target: number): number | null {
  return portMappings(service).find((mapping) => mapping.target === target)?.published ?? null;
}

describe('docker-compose.yml services', () => {
  it('runs the gateway with PostgreSQL, an object store and its init, Prometheus and Grafana', () => {
    expect(Object.keys(services).sort()).toEqual(
      ['gateway', 'grafana', 'objectstore', 'objectstore-init', 'postgres', 'prometheus'].sort(),
    );
    const build = typeof gateway.build === 'string' ? { context: gateway.build } : gateway.build;
    expect(build?.context).toBe('.');
    expect(existsSync(repoPath(build?.dockerfile ?? 'Dockerfile'))).toBe(true);
  });

  it('pins every image to a released version tag, and runs no unmaintained image', () => {
    for (const [name, service] of Object.entries(services)) {
      const image = service.image ?? '';
      if (service.build !== undefined) {
        // The gateway's own image is built here; its name only tags the local build.
        expect(image, name).toBe('s3-gateway:local');
        continue;
      }
      expect(imageProblem(image), `${name}: ${image}`).toBeNull();
    }
    expect(services.postgres?.image).toMatch(/^postgres:17(\.|$|-)/);
  });

  it('would refuse the unmaintained minio/minio image and unpinned or moving tags', () => {
    for (const image of [
      'minio/minio:RELEASE.2025-09-07T16-13-09Z',
      'docker.io/minio/minio:RELEASE.2025-09-07T16-13-09Z',
      'quay.io/minio/minio:RELEASE.2025-09-07T16-13-09Z',
    ]) {
      expect(imageProblem(image), image).toMatch(/minio\/minio is unmaintained/);
    }
    expect(imageProblem('postgres')).toMatch(/no tag/);
    expect(imageProblem('postgres:latest')).toMatch(/latest/);
    expect(imageProblem('docker.io/library/postgres:latest')).toMatch(/latest/);
    for (const moving of [
      'postgres:17',
      'prom/prometheus:v3',
      'grafana/grafana:main',
      'postgres:17-alpine',
    ]) {
      expect(imageProblem(moving), moving).toMatch(/not a pinned release/);
    }
    for (const pinned of [
      'postgres:17.10',
      'postgres:17.10-bookworm',
      'prom/prometheus:v3.14.0',
      'grafana/grafana:13.2.3',
      'pgsty/silo:RELEASE.2026-09-16T00-00-00Z',
      'registry.example.test:5000/team/store:1.2.3',
    ]) {
      expect(imageProblem(pinned), pinned).toBeNull();
    }
    expect(parseImageReference('registry.example.test:5000/team/store:1.2.3')).toEqual({
      registry: 'registry.example.test:5000',
      repository: 'team/store',
      tag: '1.2.3',
      digest: null,
    });
  });

  it('waits for the dependencies that have a health check to be healthy', () => {
    const conditions = dependencies(gateway);
    expect(conditions).toMatchObject({
      postgres: 'service_healthy',
      objectstore: 'service_healthy',
      'objectstore-init': 'service_completed_successfully',
    });
    for (const [name, service] of Object.entries(services)) {
      for (const [dependency, condition] of Object.entries(dependencies(service))) {
        const target = services[dependency];
        expect(target, `${name} depends on unknown ${dependency}`).toBeDefined();
        if (condition === 'service_healthy') {
          const hasCheck =
            (target?.healthcheck?.test !== undefined && target.healthcheck.disable !== true) ||
            (target?.build !== undefined &&
              dockerfile.stages
                .at(-1)
                ?.instructions.some((instruction) => instruction.keyword === 'HEALTHCHECK'));
          expect(hasCheck, `${name} waits for ${dependency} to be healthy but it has no health check`).toBe(
            true,
          );
        }
        if (condition === 'service_completed_successfully') {
          expect([undefined, 'no'], `${dependency} must run once`).toContain(target?.restart);
        }
      }
    }
  });

  it('bind-mounts only files and directories that exist in the repository, and declares its volumes', () => {
    const declared = Object.keys(compose.volumes ?? {});
    let binds = 0;
    for (const [name, service] of Object.entries(services)) {
      for (const mount of mounts(service)) {
        if (mount.type === 'bind') {
          binds += 1;
          expect(
            mount.source.startsWith('./'),
            `${name}: ${mount.source} should be relative to the repo`,
          ).toBe(true);
          expect(existsSync(repoPath(mount.source)), `${name}: ${mount.source} does not exist`).toBe(true);
          expect(mount.readOnly, `${name}: ${mount.source} should be mounted read-only`).toBe(true);
        } else {
          expect(declared, `${name}: volume ${mount.source}`).toContain(mount.source);
        }
      }
    }
    expect(binds).toBeGreaterThanOrEqual(4);
  });

  it('lists every secret it requires in deploy/compose.env.example, and nothing else', () => {
    const example = readFileSync(repoPath('deploy/compose.env.example'), 'utf8');
    const listed = [...example.matchAll(/^([A-Z_][A-Z0-9_]*)=/gm)].map((match) => match[1]).sort();
    expect(listed).toEqual(required);
    expect(required).toEqual(expect.arrayContaining(['GATEWAY_MASTER_KEY', 'GATEWAY_JWT_SECRET']));
  });
});

describe('the gateway service', () => {
  it('sets only environment variables the gateway reads', () => {
    const known = variablesTheGatewayReads();
    for (const name of Object.keys(rawEnvironment(gateway))) expect(known, name).toContain(name);
  });

  it('is a valid production configuration once the required secrets are set', () => {
    expect(config.mode).toBe('production');
    for (const name of [
      'DATABASE_URL',
      'GATEWAY_BACKEND_URL',
      'GATEWAY_BACKEND_ACCESS_KEY_ID',
      'GATEWAY_BACKEND_SECRET_ACCESS_KEY',
      'GATEWAY_MASTER_KEY',
      'GATEWAY_JWT_SECRET',
    ]) {
      expect(gatewayEnv[name], name).toBeTruthy();
    }
    // Without any of the secrets the gateway needs, compose refuses to start instead of using a default.
    const gatewayRequired = required.filter((name) =>
      Object.values(rawEnvironment(gateway)).some((value) =>
        variableReferences(value).some((reference) => reference.name === name && reference.operator === ':?'),
      ),
    );
    expect(gatewayRequired).toEqual(
      expect.arrayContaining([
        'GATEWAY_MASTER_KEY',
        'GATEWAY_JWT_SECRET',
        'GATEWAY_BACKEND_SECRET_ACCESS_KEY',
      ]),
    );
    for (const name of gatewayRequired) {
      const { [name]: _omitted, ...rest } = userEnv;
      expect(() => resolvedEnvironment(gateway, rest), name).toThrow(MissingVariableError);
    }
  });

  it('takes its secrets from the environment, never from the file', () => {
    for (const [name, value] of Object.entries(rawEnvironment(gateway))) {
      if (!/(SECRET|PASSWORD|MASTER_KEY)/.test(name)) continue;
      const references = variableReferences(value);
      expect(references, name).toHaveLength(1);
      const [reference] = references;
      const literal = value.replace(/\$\{[^}]*\}/, '');
      expect(literal, `${name} has a literal part`).toBe('');
      expect([':?', '?', ':-'], name).toContain(reference?.operator);
      if (reference?.operator === ':-') expect(reference.argument, `${name} defaults to a value`).toBe('');
    }
    expect(interpolate(rawEnvironment(gateway).DATABASE_URL ?? '', userEnv)).toContain(
      userEnv.POSTGRES_PASSWORD,
    );
  });

  it('listens on all interfaces on the ports it publishes', () => {
    const listeners = {
      s3: config.listen.s3,
      control: config.listen.control,
      metrics: config.listen.metrics,
    };
    const targets = portMappings(gateway).map((mapping) => mapping.target);
    for (const [plane, address] of Object.entries(listeners)) {
      const { host, port } = parseListenAddress(address);
      expect(host, plane).toBe('0.0.0.0');
      expect(targets, `${plane} port ${port}`).toContain(port);
    }
    // Only the metrics listener stays on the host's loopback.
    const metrics = portMappings(gateway).find(
      (mapping) => mapping.target === parseListenAddress(config.listen.metrics).port,
    );
    expect(metrics?.hostIp).toBe('127.0.0.1');
  });

  it('advertises public URLs that reach the published ports', () => {
    const s3 = new URL(config.s3.publicUrl ?? '');
    const control = new URL(config.control.publicUrl ?? '');
    expect(Number(s3.port)).toBe(publishedPort(gateway, parseListenAddress(config.listen.s3).port));
    expect(Number(control.port)).toBe(publishedPort(gateway, parseListenAddress(config.listen.control).port));
    expect(s3.hostname).toBe('localhost');
  });

  it('is scraped by Prometheus on its metrics port', () => {
    const prometheus = readYaml('deploy/prometheus/prometheus.yml') as {
      scrape_configs: Array<{
        job_name: string;
        metrics_path?: string;
        static_configs: Array<{ targets: string[] }>;
      }>;
    };
    const job = prometheus.scrape_configs.find((scrape) => scrape.job_name === 'gateway');
    expect(job).toBeDefined();
    expect(job?.metrics_path ?? '/metrics').toBe('/metrics');
    expect(job?.static_configs.flatMap((item) => item.targets)).toEqual([
      `gateway:${parseListenAddress(config.listen.metrics).port}`,
    ]);
  });

  it('uses the PostgreSQL service with the credentials it is created with', () => {
    const postgres = services.postgres as ComposeService;
    const database = new URL(config.database.url ?? '');
    const env = resolvedEnvironment(postgres, userEnv);
    expect(database.hostname).toBe('postgres');
    expect(database.port || '5432').toBe('5432');
    expect(decodeURIComponent(database.username)).toBe(env.POSTGRES_USER);
    expect(decodeURIComponent(database.password)).toBe(env.POSTGRES_PASSWORD);
    expect(database.pathname).toBe(`/${env.POSTGRES_DB}`);
    expect(JSON.stringify(postgres.healthcheck?.test)).toContain('pg_isready');
  });

  it('uses the object store service with the key pair the init service creates', () => {
    const backend = new URL(config.backend.url ?? '');
    expect(backend.hostname).toBe('objectstore');
    const store = services.objectstore as ComposeService;
    const address = commandArgs(store.command).find((_arg, index, args) => args[index - 1] === '--address');
    expect(Number(backend.port)).toBe(address === undefined ? 9000 : Number(address.split(':').pop()));

    const init = services['objectstore-init'] as ComposeService;
    expect(init.image).toBe(store.image);
    const initEnv = resolvedEnvironment(init, userEnv);
    expect(initEnv.GATEWAY_BACKEND_ACCESS_KEY_ID).toBe(config.backend.accessKeyId);
    expect(initEnv.GATEWAY_BACKEND_SECRET_ACCESS_KEY).toBe(config.backend.secretAccessKey);
    expect(new URL(initEnv.OBJECT_STORE_URL ?? '').host).toBe(backend.host);
    const storeEnv = resolvedEnvironment(store, userEnv);
    expect(initEnv.OBJECT_STORE_ROOT_USER).toBe(storeEnv.MINIO_ROOT_USER);
    expect(initEnv.OBJECT_STORE_ROOT_PASSWORD).toBe(storeEnv.MINIO_ROOT_PASSWORD);

    // The init service runs a script that is mounted into it and reads the variables it is given.
    const entrypoint = commandArgs(init.entrypoint);
    const script = mounts(init).find((mount) => entrypoint.includes(mount.target));
    expect(script, 'the init script is not mounted').toBeDefined();
    const text = readFileSync(repoPath(script?.source ?? ''), 'utf8');
    for (const name of Object.keys(initEnv)) expect(text, name).toContain(`$${name}`);
    expect(statSync(repoPath(script?.source ?? '')).isFile()).toBe(true);
  });

  it('drains before it stops, and gives in-flight requests their grace period before being killed', () => {
    expect(config.shutdownDrainSeconds).toBeGreaterThan(0);
    expect(durationSeconds(gateway.stop_grace_period ?? '10s')).toBeGreaterThan(
      config.shutdownDrainSeconds + config.shutdownGraceSeconds,
    );
  });
});

describe('Prometheus and Grafana services', () => {
  it('loads the repository Prometheus configuration', () => {
    const prometheus = services.prometheus as ComposeService;
    const flag = commandArgs(prometheus.command).find((arg) => arg.startsWith('--config.file='));
    const configPath = flag?.slice('--config.file='.length) ?? '/etc/prometheus/prometheus.yml';
    const mount = mounts(prometheus).find((item) => item.target === configPath);
    expect(mount?.source).toBe('./deploy/prometheus/prometheus.yml');
  });

  it('starts Grafana with an admin password from the environment', () => {
    const env = rawEnvironment(services.grafana as ComposeService);
    expect(variableReferences(env.GF_SECURITY_ADMIN_PASSWORD ?? '')[0]?.operator).toBe(':?');
  });
});

describe('compose interpolation (the helper the tests rely on)', () => {
  it('follows the compose rules for defaults, required variables and $$', () => {
    expect(interpolate('${A:-x}-${B-y}-$$C', { A: '', B: '' })).toBe('x--$C');
    expect(interpolate('${A:?set it}', { A: 'v' })).toBe('v');
    expect(() => interpolate('${A:?set it}', { A: '' })).toThrow(MissingVariableError);
    expect(durationSeconds('1m30s')).toBe(90);
  });
});
