import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { StateMachine, type StateMachineDefinition } from 'aws-local-stepfunctions';

/**
 * The local engine validates a definition as it builds its state machine (asl-validator compiles
 * its JSON schema each time: 0.2–1 s a workflow), and every test file's process builds its own.
 * A definition that passed once is remembered by the hash of its text and of the validator's
 * version, so the same text is not validated again in another process; any changed byte is.
 */
const modules = join(import.meta.dirname, '../../node_modules');
const validatorVersion = ['aws-local-stepfunctions', 'asl-validator']
  .map((name) => (JSON.parse(readFileSync(join(modules, name, 'package.json'), 'utf8')) as { version: string }).version)
  .join('/');
const cacheDirectory = join(modules, '.cache/validated-workflows');

export function stateMachineOf(definition: StateMachineDefinition): StateMachine {
  const marker = join(cacheDirectory, createHash('sha256').update(validatorVersion).update(JSON.stringify(definition)).digest('hex'));
  const validatedBefore = existsSync(marker) && readFileSync(marker, 'utf8') === validatorVersion;
  const machine = new StateMachine(definition, { validationOptions: { noValidate: validatedBefore } });
  if (!validatedBefore) {
    mkdirSync(cacheDirectory, { recursive: true });
    writeFileSync(marker, validatorVersion);
  }
  return machine;
}
