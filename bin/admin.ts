/**
 * The ops CLI, for what the public API cannot do (organizations, KYB, a lost organization key).
 *   npm run --silent admin -- org create --name <name> --kyb approved|pending [--deposit <USDC>]
 *   npm run --silent admin -- org kyb <organizationId> approved|pending
 *   npm run --silent admin -- org limits <organizationId> <initiate|write|read> --burst N --per-second N  (or --default)
 *   npm run --silent admin -- org rotate-key <organizationId>
 *   npm run --silent admin -- org migrate-keys
 *   npm run --silent admin -- statements backfill
 *   npm run --silent admin -- notifications seal-keys
 *   npm run --silent admin -- mail latest [--to <address>]
 *   npm run --silent admin -- mail bounce <address> [--reason "<text>"]
 *   npm run --silent admin -- mail unsuppress <address>
 *   npm run --silent admin -- chain-deposit simulate <organizationId> --network <network> --amount <USDC> [--tx-hash <hash>]
 *   npm run --silent admin -- resolve payment <organizationId> <transactionId> --as paid|not-paid --note "<text>"
 *   npm run --silent admin -- resolve withdrawal <organizationId> <withdrawalId> --as sent|not-sent --note "<text>" [--tx-hash 0x…]
 *   npm run --silent admin -- resolve onramp <organizationId> <onRampId> --as delivered|not-delivered --note "<text>" [--tx-hash 0x…]
 *   npm run --silent admin -- resolve offramp <organizationId> <offRampId> --as paid|refunded --note "<text>"
 *   npm run --silent admin -- resolve wire-line <statementLineId> --org <organizationId> --note "<text>"
 *   npm run --silent admin -- wire-line parked [--limit N]
 *   npm run --silent admin -- ops history <organizationId> <operationId> [--json]
 *   npm run --silent admin -- events replay-failed [--queue-url <url of payments-<env>-outbox-undelivered>]
 *   npm run --silent admin -- smoke [--url <public address>] [--webhook-url <receiver>] [--timeout <seconds>] [--json]
 * It reaches the store at DYNAMODB_ENDPOINT (default http://127.0.0.1:8000, the DynamoDB Local
 * of a running `npm start`) and TABLE_NAME, or with `--stage <environment>` the deployed stage with
 * the default AWS credential chain (lib/ops/cliTarget.ts), and prints one JSON line (`ops history`: readable text
 * unless --json).
 */
import { exitUnlessNodeRuntime } from '../lib/local/nodeRuntime.ts';

// On a Node older than the Lambda's, a clear refusal before anything starts (docs/decisions/099).
exitUnlessNodeRuntime();
// The other imports are dynamic so that these defaults are in place before any module reads the environment.
// Info lines would go to stdout, which carries exactly one JSON line; warnings and errors go to stderr.
process.env.LOG_LEVEL = 'WARN';
// `--stage <environment>` (anywhere in the arguments) points the CLI at a deployed stage (lib/ops/cliTarget.ts).
const stageAt = process.argv.indexOf('--stage');
const stage = stageAt > 1 ? process.argv[stageAt + 1] : undefined;
if (stageAt > 1) process.argv.splice(stageAt, 2);
{
  const { cliTarget, CliTargetError } = await import('../lib/ops/cliTarget.ts');
  try {
    Object.assign(process.env, cliTarget(process.env, stage).set);
  } catch (error) {
    if (!(error instanceof CliTargetError)) throw error;
    console.error(JSON.stringify({ error: error.message }));
    process.exit(2);
  }
}
// Workflows this process runs locally wait at most a second, as under npm start (never set in AWS).
if (process.env.DYNAMODB_ENDPOINT) process.env.WAIT_MAX_SECONDS ??= '1';
// Against the local stack this process runs workflow steps and ports itself, as the simulated stage
// does: its simulators are registered (decision 121; they answer only where the environment is `simulated`).
await import('#simulators/install.ts');
await import('../lib/local/mailOutbox.ts');

const { parseArgs } = await import('node:util');
const { z } = await import('zod');
const { plainText } = await import('#schemas/common.ts');
const { moveAllLegacyKeys, replaceOrganizationKeys, setKybStatus, setRateLimit } = await import('#store/organizations.ts');
const { config } = await import('#platform/config.ts');
const { buckets, defaultLimits } = await import('#domain/rateLimit.ts');
const { onboardOrganization } = await import('../lib/ops/onboarding.ts');
const { AmountError, money, parseDecimal, scaleOf } = await import('#domain/money.ts');
const { useWorkflowEngine } = await import('#platform/workflow.ts');

const usage = `usage (add --stage simulated|sandbox|production to reach a deployed stage with your AWS credentials):
  admin org create --name <name> --kyb approved|pending [--deposit <USDC, e.g. 10000 or 12.345678>, simulated only]
  admin org kyb <organizationId> approved|pending
  admin org limits <organizationId> <initiate|write|read> --burst N --per-second N   (or --default)
  admin org rotate-key <organizationId>      (a new organization key; the old one stops at once)
  admin org migrate-keys                     (once, for a table from before key items: decision 077)
  admin statements backfill                  (once, for a table from before statement lines: decision 096)
  admin notifications seal-keys              (once, for a table from before sealed unsubscribe keys: decision 110)
  admin mail latest [--to <address>]         (the newest message in the local mail outbox)
  admin mail bounce <address> [--reason "<text>"]
                                             (records a permanent bounce of the address, as SES's feedback does:
                                              no e-mail of any kind is attempted to it from then on)
  admin mail unsuppress <address>            (lifts the address's suppression once it receives mail again;
                                              in AWS also remove it from SES's account-level suppression list)
  admin chain-deposit simulate <organizationId> --network <network> --amount <USDC> [--tx-hash <hash>]
                                             (USDC arriving on chain, as a custodian would report it; simulated only)
  admin resolve payment <organizationId> <transactionId> --as paid|not-paid --note "<text>"
  admin resolve withdrawal <organizationId> <withdrawalId> --as sent|not-sent --note "<text>" [--tx-hash 0x<64 hex>, with sent]
                                             (a parked IN_DOUBT / NEEDS_ATTENTION one, after reconciling with the provider)
  admin resolve onramp <organizationId> <onRampId> --as delivered|not-delivered --note "<text>" [--tx-hash 0x<64 hex>, with delivered]
  admin resolve offramp <organizationId> <offRampId> --as paid|refunded --note "<text>"
                                             (an IN_DOUBT one, after reconciling with the issuer / off-ramp provider)
  admin resolve wire-line <statementLineId> --org <organizationId> --note "<text>"
                                             (a parked incoming wire, once the payer is identified: deposits it as its reference would)
  admin wire-line parked [--limit N]         (the manual reconciliation queue: parked incoming wires, oldest first)
  admin ops history <organizationId> <operationId> [--json]
                                             (an operation's workflow path: states, outcomes, retries, waits, where it parked, resolutions)
  admin events replay-failed [--queue-url <url>]
                                             (re-drives the outbox events the stream gave up on: locally the poller's,
                                              in AWS the payments-<env>-outbox-undelivered queue)
  admin smoke [--url <address>] [--webhook-url <url>] [--timeout <seconds>] [--json]
                                             (right after a deploy: health, the edge, a new organization, a payment to its end,
                                              its webhook and history, a test alarm; what passed and what to look at.
                                              With --stage the addresses come from the API stack's outputs; locally --url
                                              defaults to http://127.0.0.1:3000. Exits 1 when a step failed)`;

function fail(message: string): never {
  console.error(JSON.stringify({ error: message }));
  console.error(usage);
  process.exit(2);
}

const kyb = z.enum(['approved', 'pending']);
const [group, command, ...rest] = process.argv.slice(2);

try {
  if (group === 'org' && command === 'create') {
    const { values } = parseArgs({
      args: rest,
      options: { name: { type: 'string' }, kyb: { type: 'string', default: 'pending' }, deposit: { type: 'string' } },
    });
    // The name is in every e-mail of the organization and in its lists: one line, as any name a caller gives (decision 109).
    const name = plainText(200).safeParse(values.name?.trim());
    const status = kyb.safeParse(values.kyb);
    if (!name.success) fail('--name is required (1 to 200 characters, one line: no control characters, line breaks or bidi overrides)');
    if (!status.success) fail('--kyb must be approved or pending');
    // An opening deposit is USDC nobody paid: only the simulated stage may have it.
    if (values.deposit !== undefined && config().SERVICE_ENVIRONMENT !== 'simulated') {
      fail(`--deposit credits unbacked USDC: refused in ${config().SERVICE_ENVIRONMENT} (simulated only)`);
    }
    // Parsed exactly at USDC's scale before anything is created: extra decimals are refused, never rounded.
    let openingDeposit: bigint | undefined;
    if (values.deposit !== undefined) {
      try {
        openingDeposit = parseDecimal(values.deposit, scaleOf('USDC')!);
      } catch (error) {
        if (!(error instanceof AmountError)) throw error;
        fail(`--deposit ${error.message} (USDC)`);
      }
      if (openingDeposit <= 0n) fail('--deposit must be more than 0');
    }
    // Locally the wallet workflow runs in this process (recorded in the table, so a running
    // `npm start` would re-drive it if this process died); in AWS it starts on Step Functions.
    let runner: import('../lib/local/workflowRunner.ts').LocalWorkflowRunner | undefined;
    if (process.env.DYNAMODB_ENDPOINT) {
      const { LocalWorkflowRunner } = await import('../lib/local/workflowRunner.ts');
      runner = new LocalWorkflowRunner();
      useWorkflowEngine(runner);
    }
    const created = await onboardOrganization({
      name: name.data,
      kybStatus: status.data,
      ...(openingDeposit === undefined ? {} : { openingDeposit }),
    });
    if (runner) {
      await runner.waitFor(created.walletExecution);
      await runner.stop();
    }
    console.log(
      JSON.stringify({
        organizationId: created.organization.id,
        name: created.organization.name,
        kybStatus: created.organization.kybStatus,
        apiKey: created.apiKey.apiKey,
        role: 'owner',
        homeWalletId: created.organization.homeWalletId,
        // The contract's money object: exact minor units, as every amount the service shows.
        ...(openingDeposit === undefined ? {} : { deposit: money(openingDeposit, 'USDC') }),
      }),
    );
  } else if (group === 'org' && command === 'kyb') {
    const [organizationId, wanted] = rest;
    const status = kyb.safeParse(wanted);
    if (!organizationId || !status.success) fail('give an organization id and approved or pending');
    const organization = await setKybStatus(organizationId, status.data);
    if (!organization) fail(`no organization ${organizationId}`);
    console.log(JSON.stringify({ organizationId, kybStatus: organization.kybStatus }));
  } else if (group === 'org' && command === 'limits') {
    const { values, positionals } = parseArgs({
      args: rest,
      allowPositionals: true,
      options: { burst: { type: 'string' }, 'per-second': { type: 'string' }, default: { type: 'boolean' } },
    });
    const [organizationId, bucketName] = positionals;
    const bucket = z.enum(buckets).safeParse(bucketName);
    if (!organizationId || !bucket.success) fail('give an organization id and a bucket: initiate, write or read');
    const limit = values.default
      ? undefined
      : z
          .object({ burst: z.coerce.number().int().min(1).max(100_000), perSecond: z.coerce.number().positive().max(10_000) })
          .safeParse({ burst: values.burst, perSecond: values['per-second'] });
    if (limit && !limit.success) fail('--burst must be a whole number from 1 and --per-second a positive number');
    if (!(await setRateLimit(organizationId, bucket.data, limit?.data))) fail(`no organization ${organizationId}`);
    console.log(JSON.stringify({ organizationId, bucket: bucket.data, limit: limit?.data ?? defaultLimits[bucket.data] }));
  } else if (group === 'org' && command === 'rotate-key') {
    const [organizationId] = rest;
    if (!organizationId) fail('give an organization id');
    // Member keys stay; every organization key (role owner, no member) is replaced by the new one.
    const replaced = await replaceOrganizationKeys(organizationId, config().SERVICE_ENVIRONMENT);
    if (!replaced) fail(`no organization ${organizationId}`);
    console.log(JSON.stringify({ organizationId, apiKey: replaced.apiKey.apiKey, role: 'owner', revokedKeys: replaced.revokedKeyIds.length }));
  } else if (group === 'notifications' && command === 'seal-keys') {
    // Once, for a table written before decision 110; running it again seals nothing.
    const { sealClearUnsubscribeKeys } = await import('#store/unsubscribeKeys.ts');
    console.log(JSON.stringify(await sealClearUnsubscribeKeys()));
  } else if (group === 'statements' && command === 'backfill') {
    // Once, for payments written before statement lines (decision 096); running it again writes nothing.
    const { backfillFeeLines } = await import('#store/transactions.ts');
    console.log(JSON.stringify(await backfillFeeLines()));
  } else if (group === 'org' && command === 'migrate-keys') {
    // Once, for a table written before key items (decision 077); running it again moves nothing.
    console.log(JSON.stringify(await moveAllLegacyKeys()));
  } else if (group === 'mail' && command === 'latest') {
    const { values } = parseArgs({ args: rest, options: { to: { type: 'string' } } });
    const { outboxDirectory } = await import('../lib/local/mailOutbox.ts');
    const { invitationTokenOf, latestMessageTo, readOutbox } = await import('../lib/ops/outbox.ts');
    const directory = outboxDirectory();
    const message = values.to ? await latestMessageTo(directory, values.to) : (await readOutbox(directory)).at(-1);
    if (!message) fail(`no message${values.to ? ` to ${values.to}` : ''} in ${directory}`);
    const token = invitationTokenOf(message);
    console.log(JSON.stringify({ file: message.file, to: message.to, subject: message.subject, date: message.date, links: message.links, ...(token ? { token } : {}) }));
  } else if (group === 'mail' && command === 'bounce') {
    const { values, positionals } = parseArgs({ args: rest, allowPositionals: true, options: { reason: { type: 'string' } } });
    const [address] = positionals;
    if (!address || !/^[^@\s]+@[^@\s]+$/.test(address)) fail('give the e-mail address that bounced');
    const { recordSuppression } = await import('#store/mailSuppressions.ts');
    const suppression = {
      email: address.toLowerCase(),
      reason: values.reason ?? 'permanent bounce (recorded by an operator)',
      suppressedAt: new Date().toISOString(),
      source: 'operator' as const,
    };
    await recordSuppression(suppression);
    console.log(JSON.stringify(suppression));
  } else if (group === 'mail' && command === 'unsuppress') {
    const [address] = rest;
    if (!address || !/^[^@\s]+@[^@\s]+$/.test(address)) fail('give the e-mail address to receive mail again');
    const { liftSuppression } = await import('#store/mailSuppressions.ts');
    const lifted = await liftSuppression(address);
    console.log(JSON.stringify({ email: address.toLowerCase(), lifted: lifted !== undefined, ...(lifted ? { was: lifted } : {}) }));
  } else if (group === 'chain-deposit' && command === 'simulate') {
    const { values, positionals } = parseArgs({
      args: rest,
      allowPositionals: true,
      options: { network: { type: 'string' }, amount: { type: 'string' }, 'tx-hash': { type: 'string' } },
    });
    const [organizationId] = positionals;
    if (!organizationId || !values.network || !values.amount) fail('give an organization id, --network and --amount');
    if (config().SERVICE_ENVIRONMENT !== 'simulated') fail('chain-deposit simulate fakes a custodian: simulated only');
    let amount: bigint;
    try {
      amount = parseDecimal(values.amount, scaleOf('USDC')!);
    } catch (error) {
      if (!(error instanceof AmountError)) throw error;
      fail(`--amount ${error.message} (USDC)`);
    }
    if (amount <= 0n) fail('--amount must be more than 0');
    let runner: import('../lib/local/workflowRunner.ts').LocalWorkflowRunner | undefined;
    if (process.env.DYNAMODB_ENDPOINT) {
      const { LocalWorkflowRunner } = await import('../lib/local/workflowRunner.ts');
      runner = new LocalWorkflowRunner();
      useWorkflowEngine(runner);
    }
    const { simulateChainDeposit } = await import('../lib/ops/chainDeposit.ts');
    const { ChainDepositRefused } = await import('#operations/chainDeposit/intake.ts');
    let result;
    try {
      result = await simulateChainDeposit({ organizationId, network: values.network, amount, ...(values['tx-hash'] ? { txHash: values['tx-hash'] } : {}) });
    } catch (error) {
      if (error instanceof ChainDepositRefused) fail(error.message);
      throw error;
    }
    if (runner) {
      // Locally the move home runs here (recorded in the table: a running `npm start` would re-drive it if this process died).
      if (result.executionName) await runner.waitFor(result.executionName, 120_000);
      await runner.stop();
    }
    const { getOperation } = await import('#store/operations.ts');
    const { chainDepositView } = await import('#operations/chainDeposit/view.ts');
    const now = await getOperation(organizationId, 'chainDeposit', result.deposit.depositId);
    console.log(JSON.stringify({ ...result, deposit: now ? chainDepositView(now as never) : result.deposit }));
  } else if (group === 'resolve' && (command === 'payment' || command === 'withdrawal')) {
    const { resolveFromCli } = await import('../lib/ops/resolvePayments.ts');
    const { ResolveUsageError } = await import('../lib/ops/resolveDeposits.ts');
    try {
      console.log(JSON.stringify(await resolveFromCli(command, rest)));
    } catch (error) {
      if (error instanceof ResolveUsageError) fail(error.message);
      throw error;
    }
  } else if (group === 'wire-line' && command === 'parked') {
    const { values } = parseArgs({ args: rest, options: { limit: { type: 'string' } } });
    const limit = values.limit === undefined ? 100 : Number(values.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) fail('--limit is a whole number from 1 to 1000');
    const { listParkedStatementLines } = await import('#store/statementLines.ts');
    const lines = await listParkedStatementLines(limit);
    console.log(JSON.stringify({ parked: lines, count: lines.length }));
  } else if (group === 'ops' && command === 'history') {
    const { values, positionals } = parseArgs({ args: rest, allowPositionals: true, options: { json: { type: 'boolean', default: false } } });
    const [organizationId, operationId] = positionals;
    if (!organizationId || !operationId) fail('give an organization id and an operation id');
    // Locally the history is what the runner recorded in the table; in AWS, Step Functions' own.
    if (process.env.DYNAMODB_ENDPOINT) {
      const { LocalWorkflowRunner } = await import('../lib/local/workflowRunner.ts');
      useWorkflowEngine(new LocalWorkflowRunner());
    }
    const { operationHistory, renderHistory } = await import('../lib/ops/operationHistory.ts');
    const history = await operationHistory(organizationId, operationId);
    if (!history) fail(`no operation ${operationId} in organization ${organizationId}`);
    console.log(values.json ? JSON.stringify(history) : renderHistory(history));
  } else if (group === 'resolve' && (command === 'onramp' || command === 'offramp' || command === 'wire-line')) {
    const { parseDepositResolution, runDepositResolution, ResolveUsageError } = await import('../lib/ops/resolveDeposits.ts');
    let request;
    try {
      request = parseDepositResolution(command, rest);
    } catch (error) {
      if (error instanceof ResolveUsageError) fail(error.message);
      throw error;
    }
    try {
      console.log(JSON.stringify(await runDepositResolution(request, { runDepositForMs: 120_000 })));
    } catch (error) {
      if (error instanceof ResolveUsageError) fail(error.message);
      throw error;
    }
  } else if (group === 'smoke') {
    const args = command === undefined ? rest : [command, ...rest];
    const { values } = parseArgs({
      args,
      options: { url: { type: 'string' }, 'webhook-url': { type: 'string' }, timeout: { type: 'string', default: '180' }, json: { type: 'boolean', default: false } },
    });
    const timeout = z.coerce.number().int().min(5).max(3600).safeParse(values.timeout);
    if (!timeout.success) fail('--timeout is whole seconds, 5 to 3600');
    const { smokeTarget } = await import('../lib/ops/smokeTarget.ts');
    const { smokeWalk, renderSmokeReport } = await import('../lib/ops/smoke.ts');
    const target = await smokeTarget({
      environment: config().SERVICE_ENVIRONMENT,
      stage: process.env.DYNAMODB_ENDPOINT ? undefined : stage,
      ...(values.url ? { url: values.url } : {}),
      ...(values['webhook-url'] ? { webhookUrl: values['webhook-url'] } : {}),
      timeoutMs: timeout.data * 1000,
    });
    const report = await smokeWalk(target.walk);
    await target.close();
    console.log(values.json ? JSON.stringify(report) : renderSmokeReport(report));
    process.exit(report.passed ? 0 : 1);
  } else if (group === 'events' && command === 'replay-failed') {
    const { values } = parseArgs({ args: rest, options: { 'queue-url': { type: 'string' } } });
    const { localUndelivered, queuedUndelivered, replayFailed } = await import('../lib/ops/replayUndelivered.ts');
    const queueUrl = values['queue-url'];
    console.log(JSON.stringify(await replayFailed(queueUrl ? queuedUndelivered(queueUrl) : localUndelivered())));
  } else {
    fail('unknown command');
  }
  process.exit(0);
} catch (error) {
  const message = (error as Error).message;
  const hint = /ECONNREFUSED|ResourceNotFound/.test(`${message} ${(error as Error).name}`)
    ? ` (is the store running? start it with npm start, or set DYNAMODB_ENDPOINT and TABLE_NAME)`
    : '';
  console.error(JSON.stringify({ error: `${message}${hint}` }));
  process.exit(1);
}
