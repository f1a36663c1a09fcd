/**
 * The in-memory DynamoDB model reads the expressions the stores write as DynamoDB does: each form
 * the handlers use, a condition that fails with DynamoDB's own exception, and an expression it
 * cannot read refused (so a store's new form is noticed, never guessed).
 */
import {
  ConditionalCheckFailedException,
  GetItemCommand,
  PutItemCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { applyUpdate, DynamoDbModel, evaluateCondition } from './models/dynamodb-model';

const item = { id: { S: 'a' }, v: { N: '3' }, owner: { S: 'x' }, until: { N: '100' } };
const context = {
  names: { '#k': 'id', '#o': 'owner', '#u': 'until', '#n': 'v' },
  values: { ':one': { N: '1' }, ':owner': { S: 'x' }, ':now': { N: '150' }, ':lo': { N: '2' }, ':hi': { N: '3' } },
};

describe('conditions', () => {
  it.each([
    ['attribute_not_exists(#k)', false],
    ['attribute_exists(#k)', true],
    ['#o = :owner', true],
    ['#u < :now', true],
    ['v BETWEEN :lo AND :hi', true],
    ['attribute_not_exists(#k) OR #o = :owner OR #u < :now', true],
    ['outboxId = :owner AND #u < :now', false],
    ['NOT (#o = :owner)', false],
    ['(#u < :now) AND #n = :hi', true],
  ])('%s is %s', (expression, expected) => {
    expect(evaluateCondition(expression, item, context)).toBe(expected);
  });

  it('refuses what it cannot read, and a name or value the request lacks', () => {
    expect(() => evaluateCondition('begins_with(#o, :owner)', item, context)).toThrow(
      'the DynamoDB model does not know the function begins_with',
    );
    expect(() => evaluateCondition('#missing = :owner', item, context)).toThrow(
      'ExpressionAttributeNames lacks #missing',
    );
    expect(() => evaluateCondition('#o = :missing', item, context)).toThrow('ExpressionAttributeValues lacks :missing');
  });
});

describe('updates', () => {
  it('sets, adds and removes', () => {
    expect(applyUpdate('REMOVE owner, until SET v = v + :one', item, context)).toEqual({
      id: { S: 'a' },
      v: { N: '4' },
    });
    expect(applyUpdate('SET #u = :now, #o = :owner', item, context)).toMatchObject({
      until: { N: '150' },
      owner: { S: 'x' },
    });
  });

  it('refuses arithmetic on what the item lacks', () => {
    expect(() => applyUpdate('SET missing = missing + :one', item, context)).toThrow(
      'reads missing, which the item lacks',
    );
  });
});

describe('the table', () => {
  it('writes on a condition, failing with ConditionalCheckFailedException and changing nothing', () => {
    let now = 1_000_000;
    const table = new DynamoDbModel('t', 'id', 'expiration', () => now);
    table.handle(
      new PutItemCommand({
        TableName: 't',
        Item: { id: { S: 'a' }, v: { N: '1' }, expiration: { N: '1001' } },
        ConditionExpression: 'attribute_not_exists(#k)',
        ExpressionAttributeNames: { '#k': 'id' },
      }),
    );
    expect(() =>
      table.handle(
        new PutItemCommand({
          TableName: 't',
          Item: { id: { S: 'a' }, v: { N: '9' } },
          ConditionExpression: 'attribute_not_exists(#k)',
          ExpressionAttributeNames: { '#k': 'id' },
        }),
      ),
    ).toThrow(ConditionalCheckFailedException);
    expect(() =>
      table.handle(
        new UpdateItemCommand({
          TableName: 't',
          Key: { id: { S: 'a' } },
          UpdateExpression: 'SET v = :v',
          ConditionExpression: 'v = :old',
          ExpressionAttributeValues: { ':v': { N: '9' }, ':old': { N: '2' } },
        }),
      ),
    ).toThrow(ConditionalCheckFailedException);
    expect(table.handle(new GetItemCommand({ TableName: 't', Key: { id: { S: 'a' } } }))).toEqual({
      Item: { id: { S: 'a' }, v: { N: '1' }, expiration: { N: '1001' } },
    });
    // Past its TTL, the item is DynamoDB's to delete when it gets to it: the harness says when.
    now = 1_001_000;
    expect(table.expire()).toEqual(['a']);
    expect(table.handle(new GetItemCommand({ TableName: 't', Key: { id: { S: 'a' } } }))).toEqual({ Item: undefined });
  });

  it('refuses a command it does not answer and a table it does not hold', () => {
    const table = new DynamoDbModel('t', 'id', 'expiration', Date.now);
    expect(() => table.handle(new GetItemCommand({ TableName: 'other', Key: { id: { S: 'a' } } }))).toThrow(
      'holds t, not other',
    );
    expect(() => table.handle({})).toThrow('does not answer Object');
  });
});
