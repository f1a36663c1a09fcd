/** A logger made when first written to (runtime.ts lazyLog): a handler that logs nothing never loads one. */
import { lazyLog, type Log } from '../../../lambda/shared/runtime';

it('makes the logger at the first line, once, and writes every line through it', () => {
  const lines: string[] = [];
  const made: Log = {
    info: (m) => lines.push(`info ${m}`),
    warn: (m) => lines.push(`warn ${m}`),
    error: (m, ...extra) => lines.push(`error ${m} ${JSON.stringify(extra)}`),
  };
  const make = jest.fn(() => made);
  const log = lazyLog(make);
  expect(make).not.toHaveBeenCalled();
  log.warn('first');
  log.info('second');
  log.error('third', { requestId: 'r' });
  expect(make).toHaveBeenCalledTimes(1);
  expect(lines).toEqual(['warn first', 'info second', 'error third [{"requestId":"r"}]']);
});
