/**
 * `npm start`: the whole service on this machine in the `simulated` environment.
 * Configuration (all optional): PORT, HOST, DYNAMODB_LOCAL_PORT, DYNAMODB_ENDPOINT, DATA_DIR,
 * TABLE_NAME, SERVICE_ENVIRONMENT, QUOTE_TTL_SECONDS. See README.md.
 */
import { exitUnlessNodeRuntime } from '../lib/local/nodeRuntime.ts';

// On a Node older than the Lambda's, a clear refusal before anything starts (docs/decisions/099).
exitUnlessNodeRuntime();
// The other imports are dynamic so that these defaults are in place before any module reads the environment.
// Metrics are EMF lines on stdout (functions/platform/metrics.ts): silent when the logs are.
if (process.env.LOG_LEVEL === 'SILENT') process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';

const { existsSync, readFileSync, writeFileSync, mkdirSync } = await import('node:fs');
const path = await import('node:path');
const { startLocalService } = await import('../lib/local/service.ts');
const { onboardOrganization } = await import('../lib/ops/onboarding.ts');
const { getApiKey, moveAllLegacyKeys } = await import('#store/organizations.ts');
const { backfillFeeLines } = await import('#store/transactions.ts');
const { runMigrationOnce } = await import('#store/migrations.ts');
const { sealClearUnsubscribeKeys } = await import('#store/unsubscribeKeys.ts');
const { parseApiKey } = await import('#domain/apiKeys.ts');
const { config } = await import('#platform/config.ts');
const { mailTransportName } = await import('#providers/mail.ts');
const { outboxDirectory } = await import('../lib/local/mailOutbox.ts');

const started = Date.now();
const port = Number(process.env.PORT ?? 3000);
const dataDir = process.env.DATA_DIR ? path.resolve(process.env.DATA_DIR) : undefined;

const service = await startLocalService({
  port,
  host: process.env.HOST || undefined,
  dynamoEndpoint: process.env.DYNAMODB_ENDPOINT,
  dynamoPort: Number(process.env.DYNAMODB_LOCAL_PORT ?? 8000),
  dataDir,
  leaseSeconds: process.env.WORKFLOW_LEASE_SECONDS ? Number(process.env.WORKFLOW_LEASE_SECONDS) : undefined,
}).catch((error: Error) => {
  console.error(`Could not start: ${error.message}`);
  process.exit(1);
});

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  console.log(`\n${signal}: stopping the service, the workflow runner and DynamoDB Local...`);
  await service.stop();
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));

/**
 * The demo organization: KYB approved, home wallet provisioned, 10,000 USDC credited through the
 * ledger as a simulated wire deposit when it is created. With DATA_DIR its key is kept beside the
 * data (the table holds only the hash), so a restart reuses it (and its balance, never credited twice).
 */
const demoOpeningDeposit = 10_000_000_000n; // 10,000 USDC in minor units (scale 6)

interface Demo {
  organizationId: string;
  apiKey: string;
  homeWalletId: string;
}

async function demoOrganization(): Promise<Demo> {
  const saved = dataDir ? path.join(dataDir, 'demo-organization.json') : undefined;
  if (saved && existsSync(saved)) {
    const demo = JSON.parse(readFileSync(saved, 'utf8')) as Demo;
    const key = parseApiKey(demo.apiKey, config().SERVICE_ENVIRONMENT);
    const item = key ? await getApiKey(key.organizationId, key.keyId) : undefined;
    if (key && item?.hash === key.hash) return demo;
  }
  const created = await onboardOrganization({ name: 'Demo Organization', kybStatus: 'approved', openingDeposit: demoOpeningDeposit });
  await service.runner.waitFor(created.walletExecution);
  const demo = { organizationId: created.organization.id, apiKey: created.apiKey.apiKey, homeWalletId: created.organization.homeWalletId };
  if (saved) {
    mkdirSync(path.dirname(saved), { recursive: true });
    writeFileSync(saved, JSON.stringify(demo, null, 2), { mode: 0o600 });
  }
  return demo;
}

// Data kept from before key items (decision 077): its keys move out of the organization items once.
if (dataDir) await runMigrationOnce('apiKeyItems', moveAllLegacyKeys);
// Payments kept from before statement lines (decision 096) get theirs once.
if (dataDir) await runMigrationOnce('statementLines', backfillFeeLines);
// Members' unsubscribe keys kept in clear from before decision 110 are sealed once (as version 1).
if (dataDir) await runMigrationOnce('unsubscribeKeysSealed', sealClearUnsubscribeKeys);
const demo = await demoOrganization();
const seconds = ((Date.now() - started) / 1000).toFixed(1);
console.log(`
Payments service running (environment: simulated) in ${seconds}s
  Base URL:      ${service.url}
  DynamoDB:      ${service.dynamoEndpoint} (table ${service.tableName}${dataDir ? `, data in ${dataDir}` : ', in memory'})
  Demo org:      ${demo.organizationId} (KYB approved, home wallet ${demo.homeWalletId}, opened with 10,000 USDC)
  Demo API key:  ${demo.apiKey}
  Reference:     ${service.url}/docs (the whole contract, in a browser)
${mailTransportName() === 'outbox' ? `  Mail outbox:   ${path.relative(process.cwd(), outboxDirectory()) || '.'}/ (each e-mail an .eml file; open its links in a browser)\n` : ''}
Try:
  curl ${service.url}/health
  curl -H "Authorization: Bearer ${demo.apiKey}" ${service.url}/me
  curl -H "Authorization: Bearer ${demo.apiKey}" ${service.url}/balance

Ctrl-C stops everything this started.`);
