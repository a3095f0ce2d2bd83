import { describe, expect, it } from 'vitest';
import {
  allOf,
  anyOf,
  conditionFields,
  holdsNothing,
  isTombstone,
  itemDoesNotExist,
  operationIsHeldBy,
  versionIs,
} from '../../lambda/adapters/dynamodb/conditions.js';

describe('condition pieces', () => {
  it.each([
    ['item does not exist', itemDoesNotExist(), 'attribute_not_exists(#pk)'],
    ['is a tombstone', isTombstone(), 'attribute_exists(#removedAt)'],
    ['version is 4', versionIs(4), '#version = :expectedVersion'],
    ['operation is held by', operationIsHeldBy('node:a', 'op-1'), '#operations.#lockKey.#operationId = :operationId'],
    ['holds nothing', holdsNothing(), 'size(#attachments) = :empty AND size(#operations) = :empty'],
    ['one piece combined is itself', allOf(versionIs(1)), '#version = :expectedVersion'],
    [
      'pieces combined',
      allOf(anyOf(itemDoesNotExist(), isTombstone()), operationIsHeldBy('volume', 'op')),
      '((attribute_not_exists(#pk)) OR (attribute_exists(#removedAt))) AND (#operations.#lockKey.#operationId = :operationId)',
    ],
  ])('%s', (_name, condition, expression) => {
    expect(condition.expression).toBe(expression);
  });

  it('carries names and values, lock keys only as placeholders', () => {
    expect(operationIsHeldBy('node:ip-10-0-0-1', 'op-1')).toMatchObject({
      names: { '#lockKey': 'node:ip-10-0-0-1' },
      values: { ':operationId': { S: 'op-1' } },
    });
  });

  it('refuses to combine pieces that use one placeholder for two things', () => {
    expect(() => allOf(versionIs(1), versionIs(2))).toThrow(/:expectedVersion used for two values/);
    expect(() => allOf(operationIsHeldBy('volume', 'a'), operationIsHeldBy('node:b', 'a'))).toThrow(/#lockKey used for two names/);
    expect(allOf(versionIs(1), versionIs(1)).values).toEqual({ ':expectedVersion': { N: '1' } });
  });

  it('leaves out an empty value map, which DynamoDB rejects', () => {
    expect(conditionFields(itemDoesNotExist())).toEqual({
      ConditionExpression: 'attribute_not_exists(#pk)',
      ExpressionAttributeNames: { '#pk': 'pk' },
    });
  });
});
