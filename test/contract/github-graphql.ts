import { schema as published } from '@octokit/graphql-schema';
import { buildClientSchema, execute, parse, validate, type GraphQLFieldResolver, type GraphQLTypeResolver, type IntrospectionQuery } from 'graphql';
import { answerBody, type Definition, type Operation } from './check.js';

/**
 * GitHub's GraphQL API as @octokit/graphql-schema publishes its schema. A request's query is validated against the
 * schema; an answer's data is checked by executing that query over it with graphql-js, which fails on any value
 * of the wrong type, a null where the schema says non-null, or an object whose __typename the schema does not allow.
 */
/** Reads each field from the answer by its response key (its alias, if any). */
const fromAnswer: GraphQLFieldResolver<unknown, unknown> = (source, _args, _context, info) => (source as Record<string, unknown> | null)?.[info.path.key as string];
/**
 * Interfaces and unions resolve by the __typename of the object when the query asked for it, else (GitHub sends
 * none unasked) by the possible type that has the most of the object's fields.
 */
const byTypename: GraphQLTypeResolver<unknown, unknown> = (value, _context, info, abstractType) => {
  const object = value as Record<string, unknown>;
  if (typeof object.__typename === 'string') return object.__typename;
  const keys = Object.keys(object);
  const fits = (type: { getFields(): Record<string, unknown> }) => keys.filter((k) => k in type.getFields()).length;
  return [...info.schema.getPossibleTypes(abstractType)].sort((a, b) => fits(b) - fits(a))[0]?.name;
};

export function githubGraphqlDefinition(): Definition {
  const schema = buildClientSchema(published.json as unknown as IntrospectionQuery);
  const operation: Operation = {
    id: 'POST /graphql',
    checkRequest(exchange) {
      const { query } = (exchange.request.body ?? {}) as { query?: unknown };
      if (typeof query !== 'string') return ['request body has no query string'];
      return validate(schema, parse(query)).map((e) => `query: ${e.message}`);
    },
    checkResponse(exchange) {
      const got = answerBody(exchange);
      if (!got.isJson) return ['answers something other than JSON'];
      const { data, errors } = got.json as { data?: unknown; errors?: unknown };
      if (errors !== undefined && (!Array.isArray(errors) || errors.some((e) => typeof e?.message !== 'string'))) return ['errors is not a list of {message}'];
      if (data === undefined || data === null) return errors ? [] : ['answers neither data nor errors'];
      const { query, variables } = exchange.request.body as { query: string; variables?: Record<string, unknown> };
      const result = execute({ schema, document: parse(query), rootValue: data, variableValues: variables, fieldResolver: fromAnswer, typeResolver: byTypename });
      if ('then' in result) return ['the check ran asynchronously'];
      return (result.errors ?? []).map((e) => `answer/data/${(e.path ?? []).join('/')}: ${e.message}`);
    },
  };
  return { find: (method, path) => (method === 'POST' && path === '/graphql' ? operation : undefined) };
}
