type Schema = Record<string, any>;

/** Keywords that constrain a value; a schema with none of them accepts anything. */
const CONSTRAINING = new Set(['type', 'enum', 'const', 'anyOf', 'oneOf', 'allOf', 'not', 'properties', 'additionalProperties', 'items', 'required', 'format', 'pattern', 'minimum', 'maximum', 'minLength', 'maxLength', 'minItems', 'maxItems', '$ref']);
const BOOLEAN_ALLOWED = new Set(['additionalProperties', 'unevaluatedProperties']);

/**
 * What a client mapping tool schemas onto a one-type dialect (Gemini's function declarations) cannot take, as MCP
 * Inspector's schema lint reports it: a list of types, a reference outside the document, a schema that constrains
 * nothing, and a bare true/false where a schema belongs.
 */
export function portabilityIssues(node: unknown, path: string, keyword?: string): string[] {
  if (typeof node === 'boolean') return keyword && BOOLEAN_ALLOWED.has(keyword) ? [] : [`${path}: bare ${node}`];
  if (!node || typeof node !== 'object') return [];
  const schema = node as Schema;
  const issues: string[] = [];
  if (Array.isArray(schema.type)) issues.push(`${path}: type is a list (${schema.type.join(', ')})`);
  if (typeof schema.$ref === 'string' && !schema.$ref.startsWith('#')) issues.push(`${path}: remote $ref`);
  if (!Object.keys(schema).some((k) => CONSTRAINING.has(k))) issues.push(`${path}: constrains nothing`);
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'properties') for (const [name, sub] of Object.entries(value as Schema)) issues.push(...portabilityIssues(sub, `${path}/${name}`, key));
    else if (key === 'items' || key === 'additionalProperties' || key === 'not') issues.push(...portabilityIssues(value, `${path}/${key}`, key));
    else if (key === 'anyOf' || key === 'oneOf' || key === 'allOf') (value as unknown[]).forEach((sub, i) => issues.push(...portabilityIssues(sub, `${path}/${key}/${i}`, key)));
  }
  return issues;
}

/** Where an object schema leaves room for fields it does not name: every object must say additionalProperties: false. */
export function openObjects(node: unknown, path = ''): string[] {
  if (Array.isArray(node)) return node.flatMap((n, i) => openObjects(n, `${path}/${i}`));
  if (!node || typeof node !== 'object') return [];
  const schema = node as Schema;
  const here = schema.type === 'object' && schema.additionalProperties !== false ? [path || '/'] : [];
  return [...here, ...Object.entries(schema).flatMap(([k, v]) => (k === 'enum' || k === 'const' ? [] : openObjects(v, `${path}/${k}`)))];
}
