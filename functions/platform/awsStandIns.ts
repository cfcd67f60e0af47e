/**
 * Where this process answers in place of an AWS service it would call once deployed (the table's
 * key in place of KMS, a generated cursor key in place of Secrets Manager, the mail outbox in place
 * of SES), it reports the call AWS would have authorized first. The local wiring installs a check
 * that refuses it, as AWS would, when the calling function's deployed role does not allow it
 * (lib/local/grants, docs/decisions/111). In Lambda nothing is installed: the real call is made and
 * AWS checks it.
 */
export interface StandInCall {
  /** The IAM action the AWS call needs, e.g. `kms:Decrypt`. */
  action: string;
  /** The environment variable the deployed function names the resource with (its ARN, or the sender for SES). */
  resourceVariable: 'WEBHOOK_KMS_KEY_ID' | 'CURSOR_SECRET_ARN' | 'MAIL_FROM';
}

/** Checks the call for the calling function, then runs the stand-in's own work as no function's (its storage is not the caller's call). */
export type StandInCheck = <T>(call: StandInCall, work: () => Promise<T>) => Promise<T>;

let check: StandInCheck | undefined;

export function useStandInCheck(next: StandInCheck | undefined): void {
  check = next;
}

/** The stand-in's work, refused first with what AWS would throw when the calling function may not make this call. */
export function standingInFor<T>(call: StandInCall, work: () => Promise<T>): Promise<T> {
  return check ? check(call, work) : work();
}
