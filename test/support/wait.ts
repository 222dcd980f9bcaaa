type Falsy = false | 0 | '' | null | undefined;

/**
 * Polls `check` until it returns something truthy, and returns that; fails with what it was waiting for after `ms`.
 * The one wait of the suite: for a log line, a stored row, a delivery, a child process's state.
 */
export async function until<T>(check: () => T | Falsy | Promise<T | Falsy>, what: string, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value as T;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
