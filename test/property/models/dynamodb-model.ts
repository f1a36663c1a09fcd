/**
 * DynamoDB in memory, at the SDK client's boundary (`send(command)`), for the property harness: one
 * table keyed by its partition key, strongly consistent, with the expression language the handlers
 * use (conditions: comparisons, BETWEEN, AND, OR, NOT, parentheses, attribute_exists and
 * attribute_not_exists; updates: SET with `+` and `-`, REMOVE), TTL (an item past its TTL is one
 * DynamoDB may delete at any time: the harness decides when), BatchGetItem and Query on a sparse
 * index by its partition key. Anything else it is sent throws, so a handler's new call is noticed.
 */
import {
  type AttributeValue,
  BatchGetItemCommand,
  ConditionalCheckFailedException,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';

type Item = Record<string, AttributeValue>;

interface ExpressionContext {
  readonly names: Record<string, string>;
  readonly values: Record<string, AttributeValue>;
}

/** The tokens of an expression: names, values, numbers, words and punctuation. */
function tokenize(expression: string): string[] {
  const tokens = expression.match(/#[A-Za-z0-9_]+|:[A-Za-z0-9_]+|[A-Za-z_][A-Za-z0-9_.]*|<>|<=|>=|[=<>(),+-]/g);
  if (!tokens || tokens.join('').replace(/\s/g, '') !== expression.replace(/\s/g, ''))
    throw new Error(`the DynamoDB model cannot read the expression "${expression}"`);
  return tokens;
}

class Tokens {
  private at = 0;
  constructor(
    private readonly tokens: string[],
    private readonly expression: string,
  ) {}
  peek(): string | undefined {
    return this.tokens[this.at];
  }
  next(): string {
    const token = this.tokens[this.at++];
    if (token === undefined) throw new Error(`the expression "${this.expression}" ends too early`);
    return token;
  }
  expect(token: string): void {
    const got = this.next();
    if (got.toUpperCase() !== token)
      throw new Error(`the expression "${this.expression}" has "${got}" where "${token}" belongs`);
  }
  done(): boolean {
    return this.at >= this.tokens.length;
  }
}

function nameOf(token: string, context: ExpressionContext): string {
  if (!token.startsWith('#')) return token;
  const name = context.names[token];
  if (name === undefined) throw new Error(`ExpressionAttributeNames lacks ${token}`);
  return name;
}

function operand(token: string, item: Item, context: ExpressionContext): AttributeValue | undefined {
  if (token.startsWith(':')) {
    const value = context.values[token];
    if (value === undefined) throw new Error(`ExpressionAttributeValues lacks ${token}`);
    return value;
  }
  return item[nameOf(token, context)];
}

function compare(a: AttributeValue | undefined, b: AttributeValue | undefined): number | undefined {
  if (a === undefined || b === undefined) return undefined;
  if ('N' in a && 'N' in b) return Number(a.N) - Number(b.N);
  if ('S' in a && 'S' in b) return a.S! < b.S! ? -1 : a.S! > b.S! ? 1 : 0;
  return JSON.stringify(a) === JSON.stringify(b) ? 0 : undefined;
}

/** Evaluates a condition expression against an item (an absent item is `{}`). */
export function evaluateCondition(expression: string, item: Item, context: ExpressionContext): boolean {
  const t = new Tokens(tokenize(expression), expression);
  const or = (): boolean => {
    let value = and();
    while (t.peek()?.toUpperCase() === 'OR') {
      t.next();
      value = and() || value;
    }
    return value;
  };
  const and = (): boolean => {
    let value = not();
    while (t.peek()?.toUpperCase() === 'AND') {
      t.next();
      value = not() && value;
    }
    return value;
  };
  const not = (): boolean => {
    if (t.peek()?.toUpperCase() === 'NOT') {
      t.next();
      return !not();
    }
    return primary();
  };
  const primary = (): boolean => {
    const token = t.next();
    if (token === '(') {
      const value = or();
      t.expect(')');
      return value;
    }
    if (token === 'attribute_exists' || token === 'attribute_not_exists') {
      t.expect('(');
      const name = nameOf(t.next(), context);
      t.expect(')');
      return (item[name] !== undefined) === (token === 'attribute_exists');
    }
    if (t.peek() === '(') throw new Error(`the DynamoDB model does not know the function ${token} in "${expression}"`);
    const left = operand(token, item, context);
    const op = t.next();
    if (op.toUpperCase() === 'BETWEEN') {
      const low = operand(t.next(), item, context);
      t.expect('AND');
      const high = operand(t.next(), item, context);
      const a = compare(left, low);
      const b = compare(left, high);
      return a !== undefined && b !== undefined && a >= 0 && b <= 0;
    }
    const c = compare(left, operand(t.next(), item, context));
    if (c === undefined) return op === '<>';
    switch (op) {
      case '=':
        return c === 0;
      case '<>':
        return c !== 0;
      case '<':
        return c < 0;
      case '<=':
        return c <= 0;
      case '>':
        return c > 0;
      case '>=':
        return c >= 0;
      default:
        throw new Error(`the DynamoDB model does not know the comparison "${op}" in "${expression}"`);
    }
  };
  const value = or();
  if (!t.done()) throw new Error(`the expression "${expression}" has more after its end`);
  return value;
}

/** Applies an update expression (SET with + and -, REMOVE) to a copy of the item. */
export function applyUpdate(expression: string, item: Item, context: ExpressionContext): Item {
  const t = new Tokens(tokenize(expression), expression);
  const next: Item = { ...item };
  const value = (): AttributeValue => {
    const token = t.next();
    const first = operand(token, item, context);
    if (first === undefined) throw new Error(`the update "${expression}" reads ${token}, which the item lacks`);
    const op = t.peek();
    if (op !== '+' && op !== '-') return first;
    t.next();
    const second = operand(t.next(), item, context);
    if (!second || !('N' in first) || !('N' in second))
      throw new Error(`the update "${expression}" adds what is not a number`);
    return { N: String(op === '+' ? Number(first.N) + Number(second.N) : Number(first.N) - Number(second.N)) };
  };
  while (!t.done()) {
    const clause = t.next().toUpperCase();
    if (clause !== 'SET' && clause !== 'REMOVE')
      throw new Error(`the DynamoDB model does not know the update clause "${clause}" in "${expression}"`);
    do {
      if (t.peek() === ',') t.next();
      const name = nameOf(t.next(), context);
      if (clause === 'SET') {
        t.expect('=');
        next[name] = value();
      } else {
        delete next[name];
      }
    } while (t.peek() === ',');
  }
  return next;
}

function conditionFailed(): ConditionalCheckFailedException {
  return new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} });
}

/** One DynamoDB table in memory. */
export class DynamoDbModel {
  readonly items = new Map<string, Item>();
  /** Items past their TTL that DynamoDB has not deleted yet: the harness deletes them when it decides. */
  constructor(
    readonly tableName: string,
    private readonly keyName: string,
    private readonly ttlName: string,
    private readonly now: () => number,
    /** Global secondary indexes, KEYS_ONLY as the construct makes them: a query on one finds the items that have its partition key, ordered by its sort key, with only the keys. */
    private readonly indexes: Readonly<Record<string, { readonly partition: string; readonly sort?: string }>> = {},
  ) {}

  /** Deletes the items whose TTL has passed (DynamoDB does it within days; the harness picks the moment). */
  expire(): string[] {
    const gone: string[] = [];
    for (const [key, item] of this.items) {
      const ttl = Number(item[this.ttlName]?.N);
      if (Number.isFinite(ttl) && ttl * 1000 <= this.now()) {
        this.items.delete(key);
        gone.push(key);
      }
    }
    return gone;
  }

  /** Answers one command as DynamoDB would, at once. */
  handle(command: unknown): unknown {
    if (command instanceof GetItemCommand) {
      this.table(command.input.TableName);
      const item = this.items.get(this.keyOf(command.input.Key));
      return { Item: item && structuredClone(item) };
    }
    if (command instanceof PutItemCommand) {
      this.table(command.input.TableName);
      const key = this.keyOf(command.input.Item);
      this.check(command.input.ConditionExpression, this.items.get(key), command.input);
      this.items.set(key, structuredClone(command.input.Item!));
      return {};
    }
    if (command instanceof UpdateItemCommand) {
      this.table(command.input.TableName);
      const key = this.keyOf(command.input.Key);
      const current = this.items.get(key);
      this.check(command.input.ConditionExpression, current, command.input);
      const context = {
        names: command.input.ExpressionAttributeNames ?? {},
        values: command.input.ExpressionAttributeValues ?? {},
      };
      const next = applyUpdate(
        command.input.UpdateExpression!,
        current ?? structuredClone(command.input.Key!),
        context,
      );
      this.items.set(key, next);
      return { Attributes: command.input.ReturnValues === 'ALL_NEW' ? structuredClone(next) : undefined };
    }
    if (command instanceof BatchGetItemCommand) {
      const request = command.input.RequestItems?.[this.tableName];
      if (!request || Object.keys(command.input.RequestItems ?? {}).length !== 1)
        throw new Error(
          `BatchGetItem of a table the model does not hold: ${Object.keys(command.input.RequestItems ?? {}).join(', ')}`,
        );
      const found = (request.Keys ?? [])
        .map((key) => this.items.get(this.keyOf(key)))
        .filter((item): item is Item => item !== undefined);
      return { Responses: { [this.tableName]: structuredClone(found) }, UnprocessedKeys: {} };
    }
    if (command instanceof QueryCommand) {
      this.table(command.input.TableName);
      const context = {
        names: command.input.ExpressionAttributeNames ?? {},
        values: command.input.ExpressionAttributeValues ?? {},
      };
      const found = [...this.items.values()].filter((item) =>
        evaluateCondition(command.input.KeyConditionExpression!, item, context),
      );
      const index = command.input.IndexName === undefined ? undefined : this.indexes[command.input.IndexName];
      if (command.input.IndexName !== undefined && !index)
        throw new Error(`the DynamoDB model has no index ${command.input.IndexName}`);
      if (!index) return { Items: structuredClone(found), Count: found.length };
      // An index holds only the items that have its keys, in its sort key's order, projected to the keys.
      const sortOf = (item: Item) => Number(item[index.sort ?? '']?.N ?? 0);
      const items = found
        .filter((item) => item[index.partition] !== undefined)
        .sort((a, b) => sortOf(a) - sortOf(b))
        .map((item) =>
          Object.fromEntries(
            [this.keyName, index.partition, ...(index.sort ? [index.sort] : [])]
              .filter((name) => item[name])
              .map((name) => [name, structuredClone(item[name])]),
          ),
        );
      return { Items: items, Count: items.length };
    }
    throw new Error(`the DynamoDB model does not answer ${(command as object).constructor.name}`);
  }

  private table(name: string | undefined): void {
    if (name !== this.tableName) throw new Error(`the DynamoDB model holds ${this.tableName}, not ${name}`);
  }

  private keyOf(key: Item | undefined): string {
    const value = key?.[this.keyName]?.S;
    if (value === undefined) throw new Error(`a key without its string ${this.keyName}`);
    return value;
  }

  private check(
    condition: string | undefined,
    item: Item | undefined,
    input: {
      ExpressionAttributeNames?: Record<string, string>;
      ExpressionAttributeValues?: Record<string, AttributeValue>;
    },
  ): void {
    if (!condition) return;
    const context = { names: input.ExpressionAttributeNames ?? {}, values: input.ExpressionAttributeValues ?? {} };
    if (!evaluateCondition(condition, item ?? {}, context)) throw conditionFailed();
  }
}
