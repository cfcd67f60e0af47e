// The KMS client with only what secretBox.ts calls, imported at first use (docs/decisions/159): a
// bundler keeps every export of a package imported as a whole at run time, this module's three only.
export { DecryptCommand, GenerateDataKeyCommand, KMSClient } from '@aws-sdk/client-kms';
