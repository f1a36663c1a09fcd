/**
 * The reconciliation sweep's cursors: where its reading of one day of a listing (the bank's
 * settled boletos, the Pix received, the refunds of older Pix) stopped, one item per listing,
 * beneficiary and day in the processor's table, kept a little longer than the day is read again.
 */
import { type DynamoDBClient, GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { IdempotencyTable } from '../../contracts/processor';

/** Where a day's reading stopped: the last page read, how many of its items were handled, and the last one's nossoNumero. */
export interface DayCursor {
  readonly page: number;
  readonly handledOnPage: number;
  /** The key of the last entry handled on the page (a boleto's nossoNumero; the item keeps this attribute's name). */
  readonly lastNossoNumero?: string;
}

/** The sweep's cursor of one day of a listing (`boleto`, `pix`, `pix-refund`), an item of the processor's table. */
export function dayCursorId(listing: string, codigoBeneficiario: string, isoDay: string): string {
  return `sweep#${listing}#${codigoBeneficiario}#${isoDay}`;
}

/** The cursors of one listing's days for one beneficiary, in the processor's table. */
export class DynamoDbDayCursors {
  /** A cursor lives as long as its day is read again, and a little more. */
  private readonly ttlSeconds: number;

  constructor(
    private readonly client: DynamoDBClient,
    private readonly tableName: string,
    private readonly codigoBeneficiario: string,
    /** The oldest day read, in days back: a cursor outlives it by two days. */
    lookbackDays: number,
    private readonly listing = 'boleto',
    private readonly now: () => number = Date.now,
  ) {
    this.ttlSeconds = (lookbackDays + 2) * 86_400;
  }

  async read(isoDay: string): Promise<DayCursor | undefined> {
    const { Item } = await this.client.send(
      new GetItemCommand({ TableName: this.tableName, Key: this.key(isoDay), ConsistentRead: true }),
    );
    if (!Item?.page?.N) return undefined;
    return {
      page: Number(Item.page.N),
      handledOnPage: Number(Item.handledOnPage?.N ?? 0),
      ...(Item.lastNossoNumero?.S ? { lastNossoNumero: Item.lastNossoNumero.S } : {}),
    };
  }

  async write(isoDay: string, cursor: DayCursor): Promise<void> {
    await this.client.send(
      new PutItemCommand({
        TableName: this.tableName,
        Item: {
          ...this.key(isoDay),
          page: { N: String(cursor.page) },
          handledOnPage: { N: String(cursor.handledOnPage) },
          ...(cursor.lastNossoNumero ? { lastNossoNumero: { S: cursor.lastNossoNumero } } : {}),
          [IdempotencyTable.TTL]: { N: String(Math.floor(this.now() / 1000) + this.ttlSeconds) },
        },
      }),
    );
  }

  private key(isoDay: string) {
    return { [IdempotencyTable.KEY]: { S: dayCursorId(this.listing, this.codigoBeneficiario, isoDay) } };
  }
}
