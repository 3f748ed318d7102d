import { Controller, Get, Response, Route, Tags } from '@tsoa/runtime';
import type { HealthReport, OpenApiDocument, VersionInfo } from '../models/system.js';
import { openApiDocument } from '../openapi-document.js';
import type { ControlServices } from '../services/index.js';

@Route('v1')
@Tags('System')
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
  @Response<HealthReport>(503, 'Not ready: a check fails')
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
  public async getVersion(): Promise<VersionInfo> {
    return this.services.system.version();
  }

  /**
   * This OpenAPI document, generated from the service's code.
   * @summary OpenAPI document
   */
  @Get('openapi.json')
  public async getOpenApiDocument(): Promise<OpenApiDocument> {
    return openApiDocument();
  }
}
