import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

/** The repository root. */
export const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

export function repoPath(...parts: string[]): string {
  return path.join(ROOT, ...parts);
}

export function readYaml(relative: string): unknown {
  return parse(readFileSync(repoPath(relative), 'utf8'));
}

export interface ComposeService {
  image?: string;
  build?: string | { context?: string; dockerfile?: string; args?: Record<string, string> | string[] };
  command?: string | string[];
  entrypoint?: string | string[];
  environment?: Record<string, string | number | boolean | null> | string[];
  ports?: Array<string | number | { target: number; published?: string | number; host_ip?: string }>;
  volumes?: Array<string | { type?: string; source?: string; target: string; read_only?: boolean }>;
  depends_on?: string[] | Record<string, { condition?: string }>;
  healthcheck?: { test?: string | string[]; disable?: boolean };
  restart?: string;
  stop_grace_period?: string;
}

export interface ComposeFile {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
}

export function loadCompose(): ComposeFile {
  return readYaml('docker-compose.yml') as ComposeFile;
}

export class MissingVariableError extends Error {
  constructor(readonly variable: string) {
    super(`required variable ${variable} is not set`);
  }
}

/** A variable reference in a compose value, as `${NAME}`, `${NAME:-default}`, `${NAME:?error}`… */
export interface VariableReference {
  name: string;
  operator: '' | ':-' | '-' | ':?' | '?' | ':+' | '+';
  argument: string;
}

const REFERENCE =
  /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:-|-|:\?|\?|:\+|\+)([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g;

export function variableReferences(value: string): VariableReference[] {
  const references: VariableReference[] = [];
  for (const match of value.matchAll(REFERENCE)) {
    if (match[0] === '$$') continue;
    const name = (match[1] ?? match[4]) as string;
    references.push({
      name,
      operator: (match[2] ?? '') as VariableReference['operator'],
      argument: match[3] ?? '',
    });
  }
  return references;
}

/** Compose's variable interpolation (the subset the compose specification defines, without nesting). */
export function interpolate(value: string, env: Readonly<Record<string, string | undefined>>): string {
  return value.replace(
    REFERENCE,
    (whole, braced?: string, operator?: string, argument?: string, bare?: string) => {
      if (whole === '$$') return '$';
      const name = (braced ?? bare) as string;
      const current = env[name];
      const set = current !== undefined;
      const nonEmpty = set && current !== '';
      switch (operator) {
        case ':-':
          return nonEmpty ? current : (argument ?? '');
        case '-':
          return set ? current : (argument ?? '');
        case ':?':
          if (!nonEmpty) throw new MissingVariableError(name);
          return current;
        case '?':
          if (!set) throw new MissingVariableError(name);
          return current;
        case ':+':
          return nonEmpty ? (argument ?? '') : '';
        case '+':
          return set ? (argument ?? '') : '';
        default:
          return current ?? '';
      }
    },
  );
}

/** A service's environment as written in the file (list or map form), values uninterpolated. */
export function rawEnvironment(service: ComposeService): Record<string, string> {
  const environment = service.environment ?? {};
  if (Array.isArray(environment)) {
    return Object.fromEntries(
      environment.map((entry) => {
        const index = entry.indexOf('=');
        return index < 0 ? [entry, ''] : [entry.slice(0, index), entry.slice(index + 1)];
      }),
    );
  }
  return Object.fromEntries(
    Object.entries(environment).map(([key, value]) => [key, value === null ? '' : String(value)]),
  );
}

export function resolvedEnvironment(
  service: ComposeService,
  userEnv: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  return Object.fromEntries(
    Object.entries(rawEnvironment(service)).map(([key, value]) => [key, interpolate(value, userEnv)]),
  );
}

export interface PortMapping {
  hostIp: string | null;
  published: number | null;
  target: number;
}

export function portMappings(service: ComposeService): PortMapping[] {
  return (service.ports ?? []).map((port) => {
    if (typeof port === 'object') {
      return {
        hostIp: port.host_ip ?? null,
        published: port.published === undefined ? null : Number(port.published),
        target: Number(port.target),
      };
    }
    const spec = String(port).replace(/\/(tcp|udp)$/, '');
    const parts = spec.split(':');
    const target = Number(parts.at(-1));
    if (parts.length === 1) return { hostIp: null, published: null, target };
    const published = Number(parts.at(-2));
    return { hostIp: parts.length > 2 ? parts.slice(0, -2).join(':') : null, published, target };
  });
}

export interface Mount {
  type: 'bind' | 'volume';
  source: string;
  target: string;
  readOnly: boolean;
}

export function mounts(service: ComposeService): Mount[] {
  return (service.volumes ?? []).map((volume) => {
    if (typeof volume === 'object') {
      const source = volume.source ?? '';
      return {
        type: volume.type === 'bind' ? 'bind' : 'volume',
        source,
        target: volume.target,
        readOnly: volume.read_only ?? false,
      };
    }
    const [source = '', target = '', mode = ''] = volume.split(':');
    const bind = /^(\.|\/|~)/.test(source);
    return { type: bind ? 'bind' : 'volume', source, target, readOnly: mode.split(',').includes('ro') };
  });
}

/** Where a container path comes from on the host, through the service's bind mounts (or null). */
export function hostPathOf(service: ComposeService, containerPath: string): string | null {
  const candidates = mounts(service)
    .filter((mount) => mount.type === 'bind')
    .filter((mount) => containerPath === mount.target || containerPath.startsWith(`${mount.target}/`))
    .sort((a, b) => b.target.length - a.target.length);
  const mount = candidates[0];
  if (mount === undefined) return null;
  return path.join(ROOT, mount.source, path.posix.relative(mount.target, containerPath));
}

export function dependencies(service: ComposeService): Record<string, string> {
  const dependsOn = service.depends_on ?? {};
  if (Array.isArray(dependsOn)) return Object.fromEntries(dependsOn.map((name) => [name, 'service_started']));
  return Object.fromEntries(
    Object.entries(dependsOn).map(([name, spec]) => [name, spec.condition ?? 'service_started']),
  );
}

export function commandArgs(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : value.split(/\s+/).filter(Boolean);
}

/** Durations as compose writes them: 1m30s, 30s, 500ms. */
export function durationSeconds(value: string): number {
  const match = /^(?:(\d+)h)?(?:(\d+)m(?!s))?(?:(\d+)s)?(?:(\d+)ms)?$/.exec(value.trim());
  if (!match || value.trim() === '') throw new Error(`not a compose duration: ${value}`);
  const [, h = '0', m = '0', s = '0', ms = '0'] = match;
  return Number(h) * 3600 + Number(m) * 60 + Number(s) + Number(ms) / 1000;
}

export interface ImageReference {
  /** Registry host, when the reference names one (e.g. quay.io); null for Docker Hub. */
  registry: string | null;
  /** Repository path without the registry, with Docker Hub's implicit "library/" removed. */
  repository: string;
  tag: string | null;
  digest: string | null;
}

/** Splits an image reference: [registry/]repository[:tag][@digest]. */
export function parseImageReference(image: string): ImageReference {
  const [reference = '', digest = null] = image.split('@');
  const slash = reference.lastIndexOf('/');
  const colon = reference.lastIndexOf(':');
  const tag = colon > slash ? reference.slice(colon + 1) : null;
  const name = colon > slash ? reference.slice(0, colon) : reference;
  const parts = name.split('/');
  const first = parts[0] ?? '';
  const hasRegistry =
    parts.length > 1 && (first.includes('.') || first.includes(':') || first === 'localhost');
  const registry = hasRegistry ? first : null;
  let repository = (hasRegistry ? parts.slice(1) : parts).join('/');
  if (repository.startsWith('library/')) repository = repository.slice('library/'.length);
  return { registry, repository, tag, digest };
}

/**
 * Images that must not be deployed: the community MinIO image is unmaintained (the project went into
 * maintenance mode in December 2025 and stopped publishing images), whichever registry serves it.
 */
export const UNMAINTAINED_IMAGES = ['minio/minio'] as const;

/** Tags that look like versions but move: a bare major ("17", "v3") or a named channel. */
const PINNED_TAG =
  /^(v?\d+\.\d+(\.\d+)*([-+][0-9A-Za-z][0-9A-Za-z.-]*)?|RELEASE\.\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}Z)$/;

/** Why an image reference is not acceptable for the deployment, or null when it is pinned and maintained. */
export function imageProblem(image: string): string | null {
  const reference = parseImageReference(image);
  if (UNMAINTAINED_IMAGES.some((name) => reference.repository === name)) {
    return `${reference.repository} is unmaintained (no more images or security fixes); use a maintained MinIO-compatible image`;
  }
  if (reference.tag === null) return 'no tag (that means "latest")';
  if (reference.tag === 'latest') return 'the "latest" tag moves';
  if (!PINNED_TAG.test(reference.tag)) {
    return `tag "${reference.tag}" is not a pinned release (major.minor[.patch] or RELEASE.<date>)`;
  }
  return null;
}
