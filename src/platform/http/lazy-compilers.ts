// Route validators and serializers compiled on a route's first use instead of at startup: mockyard
// has many schema-rich routes and most runs touch a few of them, so this takes most of the compile
// work off the time to the first 200.
import AjvCompiler from '@fastify/ajv-compiler';
import SerializerSelector from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

type CompilersFactory = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;

type Validate = ((data: unknown) => unknown) & { errors?: unknown };
type Serialize = (data: unknown) => string;
type RouteSchema = Record<string, unknown>;

export function lazyCompilersFactory(): CompilersFactory {
  const buildValidator = AjvCompiler() as unknown as (
    external: unknown,
    options: unknown,
  ) => (route: RouteSchema) => Validate;
  const buildSerializer = SerializerSelector() as unknown as (
    external: unknown,
    options: unknown,
    ...rest: unknown[]
  ) => (route: RouteSchema) => Serialize;
  const factory = {
    buildValidator(external: unknown, options: unknown) {
      const compile = buildValidator(external, options);
      return (route: RouteSchema): Validate => {
        let validate: Validate | undefined;
        // Fastify reads `errors` off the function it was given, so mirror the compiled one's.
        const lazy: Validate = (data) => {
          validate ??= compile(route);
          const result = validate(data);
          lazy.errors = validate.errors;
          return result;
        };
        return lazy;
      };
    },
    buildSerializer(external: unknown, options: unknown, ...rest: unknown[]) {
      const compile = buildSerializer(external, options, ...rest);
      return (route: RouteSchema): Serialize => {
        let serialize: Serialize | undefined;
        return (data) => (serialize ??= compile(route))(data);
      };
    },
  };
  return factory as unknown as CompilersFactory;
}
