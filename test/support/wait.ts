/**
 * Waits until `condition` holds, polling every `intervalMs`, and fails naming `what` after
 * `timeoutMs`: a test waits exactly as long as the machine needs, never a fixed time that a busy
 * machine can outrun.
 */
export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 10_000,
  intervalMs = 10,
): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > until) throw new Error(`waited ${timeoutMs} ms for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
