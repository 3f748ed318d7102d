export interface HealthCheck {
  status: 'ok' | 'failing';
  /** Why it fails; absent when ok. */
  error?: string;
}

export interface HealthReport {
  status: 'ready' | 'unavailable';
  /** `shutdown` is present (and failing) only while the instance drains before it stops. */
  checks: { database: HealthCheck; backend: HealthCheck; shutdown?: HealthCheck };
}

export interface VersionInfo {
  product: string;
  version: string;
  commit: string;
  apiVersion: string;
}

/** An OpenAPI 3 document. */
export interface OpenApiDocument {
  openapi: string;
  [key: string]: unknown;
}
