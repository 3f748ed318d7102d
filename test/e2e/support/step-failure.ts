/**
 * The message of a scenario step that did not run because an earlier step of the same client failed
 * (thrown by client-suite.ts, recognised by results-reporter.ts; kept apart from both so the reporter
 * does not load the test code).
 */
export const EARLIER_STEP_FAILED = 'an earlier step failed';
