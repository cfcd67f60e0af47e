// The Secrets Manager client with only what the service calls, imported at first use by stageSecret.ts
// (docs/decisions/159): a bundler keeps every export of a package imported as a
// whole at run time (`await import('@aws-sdk/client-secrets-manager')`), this module's three only.
export { GetSecretValueCommand, ResourceNotFoundException, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
