import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';

/**
 * The baseline of the bundle figures (issue 28): a Lambda that does nothing but one DynamoDB GetItem
 * through the same SDK clients ours use, bundled with the same options. Every function's size and
 * cold import are read against this one, built and timed in the same run.
 */
const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));

export const handler = async (event: { pk: string; sk: string }) =>
  (await client.send(new GetCommand({ TableName: process.env.TABLE_NAME, Key: { pk: event.pk, sk: event.sk } }))).Item;
