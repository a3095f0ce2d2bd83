/**
 * Condition expressions built from small named pieces, so each write states its rule in one line:
 *
 *   create:   (item does not exist OR is a tombstone) [AND operation is held by …]
 *   update:   version is N [AND operation is held by …]
 *   remove:   version is N AND holds nothing
 *
 * Why every write is conditional (two passes A and B, one volume):
 *   A reads v3 ─ B reads v3 ─ A writes v4 (lock taken) ─ B writes "version is 3" → fails, B re-reads v4, sees A's lock.
 * Why the operation fence as well: a holder whose lease expired and was taken over must not
 * land a late "attach completed" on the new holder's item, even if it read the current version.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';

export interface Condition {
  expression: string;
  names: Record<string, string>;
  values: Record<string, AttributeValue>;
}

export const itemDoesNotExist = (): Condition => ({
  expression: 'attribute_not_exists(#pk)',
  names: { '#pk': 'pk' },
  values: {},
});

/** `remove` leaves a tombstone; creating over it continues its version. */
export const isTombstone = (): Condition => ({
  expression: 'attribute_exists(#removedAt)',
  names: { '#removedAt': 'removedAt' },
  values: {},
});

export const versionIs = (version: number): Condition => ({
  expression: '#version = :expectedVersion',
  names: { '#version': 'version' },
  values: { ':expectedVersion': { N: String(version) } },
});

/** The operation under `lockKey` still has id `operationId`: the writer has not been taken over. */
export const operationIsHeldBy = (lockKey: string, operationId: string): Condition => ({
  expression: '#operations.#lockKey.#operationId = :operationId',
  names: { '#operations': 'operations', '#lockKey': lockKey, '#operationId': 'id' },
  values: { ':operationId': { S: operationId } },
});

/** No attachment and no operation: the only state in which a volume's item may go. */
export const holdsNothing = (): Condition => ({
  expression: 'size(#attachments) = :empty AND size(#operations) = :empty',
  names: { '#attachments': 'attachments', '#operations': 'operations' },
  values: { ':empty': { N: '0' } },
});

function combine(operator: 'AND' | 'OR', conditions: Condition[]): Condition {
  const names: Record<string, string> = {};
  const values: Record<string, AttributeValue> = {};
  for (const condition of conditions) {
    for (const [placeholder, name] of Object.entries(condition.names)) {
      if (placeholder in names && names[placeholder] !== name) throw new Error(`condition placeholder ${placeholder} used for two names`);
      names[placeholder] = name;
    }
    for (const [placeholder, value] of Object.entries(condition.values)) {
      if (placeholder in values && JSON.stringify(values[placeholder]) !== JSON.stringify(value)) {
        throw new Error(`condition placeholder ${placeholder} used for two values`);
      }
      values[placeholder] = value;
    }
  }
  const expression =
    conditions.length === 1 ? (conditions[0]?.expression ?? '') : conditions.map((c) => `(${c.expression})`).join(` ${operator} `);
  return { expression, names, values };
}

export const allOf = (...conditions: Condition[]): Condition => combine('AND', conditions);
export const anyOf = (...conditions: Condition[]): Condition => combine('OR', conditions);

/** The fields of a DynamoDB command that carry the condition; empty maps are omitted (DynamoDB rejects them). */
export function conditionFields(
  condition: Condition,
  extraNames: Record<string, string> = {},
  extraValues: Record<string, AttributeValue> = {},
) {
  const names = { ...condition.names, ...extraNames };
  const values = { ...condition.values, ...extraValues };
  return {
    ConditionExpression: condition.expression,
    ExpressionAttributeNames: names,
    ...(Object.keys(values).length > 0 ? { ExpressionAttributeValues: values } : {}),
  };
}
