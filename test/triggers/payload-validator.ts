import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { TriggerKind } from '../../src/contracts/triggers.js';
import { payloadJsonSchema } from '../../src/schema.js';

/**
 * Checks event payloads against their kind's payload schema as a client would (its JSON Schema, strict Ajv 2020 with
 * formats) and as the code declares it (the zod object): errors of both, none when the payload fits.
 */
export function payloadValidator() {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  addFormats(ajv);
  const compiled = new Map<string, ValidateFunction>();
  const compile = (kind: TriggerKind) => {
    let validate = compiled.get(kind.kind);
    if (!validate) compiled.set(kind.kind, (validate = ajv.compile(payloadJsonSchema(kind.payload))));
    return validate;
  };
  return {
    compile,
    errors(kind: TriggerKind, payload: unknown): string[] {
      const validate = compile(kind);
      const schemaErrors = validate(payload) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`);
      const parsed = kind.payload.safeParse(payload);
      const zodErrors = parsed.success ? [] : parsed.error.issues.map((i) => `zod /${i.path.join('/')} ${i.message}`);
      return [...schemaErrors, ...zodErrors];
    },
  };
}
