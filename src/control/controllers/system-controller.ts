import { Controller, Get, Produces, Response, Route, Tags } from '@tsoa/runtime';
import { JSON_MEDIA_TYPE, PROBLEM_MEDIA_TYPE } from '../http/media-types.js';
import type { HealthReport, OpenApiDocument, VersionInfo } from '../models/system.js';
import { openApiDocument } from '../openapi-document.js';
import type { ProblemDocument } from '../problems.js';
import type { ControlServices } from '../services/index.js';

@Route('v1')
@Tags('System')
// Open endpoints, but input no endpoint takes and storage credentials are refused here as anywhere.
@Response<ProblemDocument>(
  400,
  'A query parameter that cannot be read (validation_failed), or a body that is not JSON (malformed_json)',
)
@Response<ProblemDocument>(
  401,
  'A storage credential was sent; these endpoints need no credential at all (storage_credentials_not_accepted)',
)
// tsoa documents errors in the controller's media type; each operation's success names its own.
@Produces(PROBLEM_MEDIA_TYPE)
export class SystemController extends Controller {
  constructor(private readonly services: ControlServices) {
    super();
  }

  /**
   * Readiness of the database and the object store: 200 when both answer, 503 naming the failing check
   * (`shutdown` while the instance drains before it stops).
   * @summary Health
   */
  @Get('health')
  @Produces(JSON_MEDIA_TYPE)
  @Response<HealthReport>(
    503,
    'Not ready: a check fails',
    {
      status: 'unavailable',
      checks: { database: { status: 'ok' }, backend: { status: 'failing', error: 'unreachable or failing' } },
    },
    JSON_MEDIA_TYPE,
  )
  public async getHealth(): Promise<HealthReport> {
    const report = await this.services.system.health();
    if (report.status !== 'ready') this.setStatus(503);
    return report;
  }

  /**
   * Product version, build commit and API version.
   * @summary Version
   */
  @Get('version')
  @Produces(JSON_MEDIA_TYPE)
  public async getVersion(): Promise<VersionInfo> {
    return this.services.system.version();
  }

  /**
   * This OpenAPI document, generated from the service's code.
   * @summary OpenAPI document
   */
  @Get('openapi.json')
  @Produces(JSON_MEDIA_TYPE)
  public async getOpenApiDocument(): Promise<OpenApiDocument> {
    return openApiDocument();
  }
}
