/** A plain-text table, columns padded to their widest cell (the CLI's and the bench's). */
export function formatTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((cell, i) => Math.max(cell.length, ...rows.map((row) => row[i]?.length ?? 0)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => cell.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

/** A duration for a person: `45 s`, `12 min`, `3 h 5 min`, `2 d 4 h`. */
export function humanDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const min = Math.floor(s / 60);
  if (min < 60) return `${min} min`;
  const h = Math.floor(min / 60);
  if (h < 48) return `${h} h${min % 60 ? ` ${min % 60} min` : ''}`;
  return `${Math.floor(h / 24)} d${h % 24 ? ` ${h % 24} h` : ''}`;
}

/** A value someone gave (a stack name, an argument) or wrote (a record), printable on one line: control characters escaped. */
export const printable = (value: string): string => JSON.stringify(value).slice(1, -1);

/** The same in double quotes, as the CLI names what it was given. */
export const quoted = (value: string): string => JSON.stringify(value);
