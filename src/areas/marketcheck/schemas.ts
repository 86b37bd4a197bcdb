import { Type, type Static } from 'typebox';

const StatsSchema = Type.Object(
  {
    median: Type.Number(),
    mean: Type.Number(),
    min: Type.Number(),
    max: Type.Number(),
    iqr: Type.Number({ description: 'Interquartile range (third minus first quartile)' }),
  },
  { description: 'Distribution of one measure over the counted listings (whole numbers)' },
);

export const PopularCarSchema = Type.Object(
  {
    make: Type.String(),
    model: Type.String(),
    count: Type.Integer({ minimum: 0, description: 'Listings counted for this make and model at the requested level' }),
    country: Type.Unsafe<'us' | 'ca'>({ type: 'string', enum: ['us', 'ca'] }),
    state: Type.Optional(Type.String({ description: 'Present at state and city level' })),
    city: Type.Optional(Type.String({ description: 'Present at city level' })),
    inventory_type: Type.Unsafe<'new' | 'used'>({ type: 'string', enum: ['new', 'used'] }),
    price_stats: StatsSchema,
    miles_stats: StatsSchema,
    dom_stats: StatsSchema,
  },
  { description: 'One ranked make and model' },
);
export type PopularCar = Static<typeof PopularCarSchema>;

export const PopularCarsSchema = Type.Array(PopularCarSchema, {
  maxItems: 50,
  description: 'At most 50 makes and models, most listings first; an empty array for a place without listings',
});

export const PopularCarsQuerySchema = Type.Object({
  api_key: Type.Optional(Type.String({ description: 'Account key; declared optional but needed on every call' })),
  car_type: Type.Unsafe<'new' | 'used'>({
    type: 'string',
    enum: ['new', 'used'],
    description: 'Inventory type to rank',
  }),
  country: Type.Optional(
    Type.Unsafe<'us' | 'ca' | 'US' | 'CA'>({
      type: 'string',
      enum: ['us', 'ca', 'US', 'CA'],
      default: 'us',
      description: 'Market country',
    }),
  ),
  state: Type.Optional(Type.String({ description: 'State or province code for a state-level ranking, e.g. FL or ON' })),
  city_state: Type.Optional(
    Type.String({
      description: 'City and state joined by a pipe for a city-level ranking, e.g. jacksonville|FL; wins over state',
    }),
  ),
});

export const ErrorSchema = Type.Object(
  { code: Type.Integer(), message: Type.String() },
  { description: 'MarketCheck error body' },
);
export type MarketcheckError = Static<typeof ErrorSchema>;

export const MessageErrorSchema = Type.Object(
  { message: Type.String() },
  { description: 'Gateway error body (rate limit)' },
);
