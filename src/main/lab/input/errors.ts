// Input errors: what every feature throws for a request, plan or config it cannot use. Here, not in sweep/, so that
// gpu/, facility/ and the rest import them without depending on the sweep.
import { LabError, type ErrorCode } from '../../../shared/errors';
import { issueLines, type PlanIssue } from './issues';

/** A plan (or a request about one) that cannot be used; `code` says why (invalid by default). */
export class PlanError extends LabError {
  /** The same problems at their fields (`path` dotted, '' for the plan as a whole). */
  readonly issues: PlanIssue[];
  constructor(
    message: string,
    readonly errors: string[] = [message],
    code: ErrorCode = 'invalid',
    issues?: PlanIssue[],
  ) {
    super(code, message);
    this.name = 'PlanError';
    this.issues = issues ?? errors.map((e) => ({ path: '', message: e }));
  }

  static of(where: string, issues: PlanIssue[]): PlanError {
    const errors = issueLines(issues);
    return new PlanError(`${where}: invalid plan\n  ${errors.join('\n  ')}`, errors, 'invalid', issues);
  }
}

/** A sweep or run id that does not exist (404 through the host, exit 2 in the CLI). */
export class NotFoundError extends PlanError {
  constructor(message: string) {
    super(message, [message], 'not_found');
    this.name = 'NotFoundError';
  }
}

/** Bad facility input: every line names the field (or file) at fault (a plan error's shape: message + lines). */
export class FacilityConfigError extends PlanError {
  override name = 'FacilityConfigError';
}
