/** Remembers every secret the process has decrypted and removes them from any text leaving it. */
export class Redactor {
  private readonly secrets = new Set<string>();

  add(secret: string | undefined | null): void {
    if (secret && secret.length >= 6) this.secrets.add(secret);
  }

  redact(text: string): string {
    let out = text;
    for (const secret of this.secrets) {
      if (out.includes(secret)) out = out.split(secret).join('[redacted]');
    }
    return out.replace(/\b(Bearer|token)\s+[A-Za-z0-9._~+/=-]{8,}/gi, '$1 [redacted]').replace(/\bsbp_[A-Za-z0-9_-]{8,}/g, 'sbp_[redacted]');
  }

  /** The same value with every string in it, keys included, redacted: a whole tool result. */
  redactDeep<T>(value: T): T {
    if (typeof value === 'string') return this.redact(value) as T;
    if (Array.isArray(value)) return value.map((v) => this.redactDeep(v)) as T;
    if (value === null || typeof value !== 'object') return value;
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [this.redact(k), this.redactDeep(v)])) as T;
  }
}
