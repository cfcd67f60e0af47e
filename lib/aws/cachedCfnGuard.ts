import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { CfnGuardValidator } from '@cdklabs/cdk-validator-cfnguard';
import type { IPolicyValidationContextBeta1, IPolicyValidationPluginBeta1, PolicyValidationPluginReportBeta1, PolicyViolationBeta1 } from 'aws-cdk-lib';

/**
 * cfn-guard, remembering its answer for each template (docs/decisions/139). Guard takes seconds a
 * template (every Control Tower rule read against every resource), and one CI run asks it about the
 * same template more than once: `cdk synth` of a stage, then cdk.test synthesizing that stage again
 * in process. Guard checks each template on its own, so its answer for a template (the violations
 * in it, before the stacks' acknowledgements are applied) depends on that template's bytes and on
 * the guard package (binary, rules, plugin code) and this module, nothing else: they are the key,
 * and any changed byte of any of them asks guard again. The name, version and rule ids are guard's
 * own, so reports and the templates' analytics read exactly as without the cache.
 */
const guardPackage = dirname(createRequire(import.meta.url).resolve('@cdklabs/cdk-validator-cfnguard/package.json'));
const cacheDirectory = join(import.meta.dirname, '../../node_modules/.cache/cfn-guard');
/** A remembered violation's template, replaced by the path of the template it is read for. */
const thisTemplate = '<template>';

export class CachedCfnGuardValidator implements IPolicyValidationPluginBeta1 {
  private readonly guard = new CfnGuardValidator();
  readonly name = this.guard.name;
  readonly version = this.guard.version;
  readonly ruleIds = this.guard.ruleIds;

  validate(context: IPolicyValidationContextBeta1): PolicyValidationPluginReportBeta1 {
    const files = new Map(context.templatePaths.map((path) => [path, answerFile(path)]));
    const answers = new Map<string, PolicyViolationBeta1[]>();
    for (const [path, file] of files) {
      const remembered = read(file);
      if (remembered) answers.set(path, remembered.map((violation) => moved(violation, (templatePath) => templatePath === thisTemplate, path)));
    }
    const unknown = context.templatePaths.filter((path) => !answers.has(path));
    if (unknown.length > 0) {
      const report = this.guard.validate({ ...context, templatePaths: unknown });
      // Guard names a template as it likes (the CLI passes paths relative to the project, guard may answer absolute ones).
      const asGiven = new Map(unknown.map((path) => [resolve(path), path]));
      const templateOf = (violation: PolicyViolationBeta1) => {
        const named = new Set(violation.violatingResources.map((resource) => asGiven.get(resolve(resource.templatePath))));
        return named.size === 1 ? [...named][0] : undefined;
      };
      // Kept only when every violation names exactly one of these templates and the verdict is what the
      // violations say; anything else goes out exactly as guard said it, and nothing is remembered.
      if (!report.violations.every((violation) => templateOf(violation) !== undefined) || report.success !== (report.violations.length === 0)) return report;
      for (const path of unknown) {
        const violations = report.violations.filter((violation) => templateOf(violation) === path);
        write(files.get(path)!, violations.map((violation) => moved(violation, (templatePath) => resolve(templatePath) === resolve(path), thisTemplate)));
        answers.set(path, violations);
      }
    }
    const violations = context.templatePaths.flatMap((path) => answers.get(path)!);
    return { success: violations.length === 0, violations };
  }
}

let checkerDigest: string | undefined;

function answerFile(templatePath: string): string {
  // This module's own text too: a rule disabled or an option given above changes the answers.
  checkerDigest ??= createHash('sha256').update(digestOf(guardPackage)).update(readFileSync(new URL(import.meta.url))).digest('hex');
  return join(cacheDirectory, `${createHash('sha256').update(checkerDigest).update('\0').update(readFileSync(templatePath)).digest('hex')}.json`);
}

/** Every file of the guard package, by path and content: its binaries, rule files and plugin code. */
function digestOf(directory: string): string {
  const hash = createHash('sha256');
  const files = readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
  for (const file of files) hash.update(relative(directory, file)).update('\0').update(readFileSync(file)).update('\0');
  return hash.digest('hex');
}

function moved(violation: PolicyViolationBeta1, from: (templatePath: string) => boolean, to: string): PolicyViolationBeta1 {
  return { ...violation, violatingResources: violation.violatingResources.map((resource) => (from(resource.templatePath) ? { ...resource, templatePath: to } : resource)) };
}

function read(file: string): PolicyViolationBeta1[] | undefined {
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as PolicyViolationBeta1[];
  } catch {
    return undefined; // a torn or foreign file: ask guard
  }
}

function write(file: string, violations: PolicyViolationBeta1[]): void {
  mkdirSync(cacheDirectory, { recursive: true });
  // Written aside and renamed: a synth reading at the same time sees a whole answer or none.
  const partial = `${file}.${process.pid}.tmp`;
  writeFileSync(partial, JSON.stringify(violations));
  renameSync(partial, file);
}
