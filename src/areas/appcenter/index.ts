import { type AreaDefinition, Upstream } from '../../platform/area.js';
import { AppCenterError, errorBody } from './errors.js';
import { catalogData } from './queries.js';
import { appcenterDocs, appcenterExamples } from './examples.js';
import { appcenterRoutes } from './routes.js';
import { appcenterHint } from './hints.js';

export const appcenterArea: AreaDefinition = {
  name: 'appcenter',
  letter: 'C',
  title: 'App Center API v0.1',
  prefix: '/appcenter',
  upstream: new Upstream('https://api.appcenter.ms'),
  plugin: appcenterRoutes,
  catalog: catalogData,
  examples: appcenterExamples,
  docs: appcenterDocs,
  formatError: ({ status, message, cause }) => ({
    contentType: 'application/json; charset=utf-8',
    // An AppCenterError without detail asks for the gateway's plain text for its status.
    body: JSON.stringify(errorBody(status, cause instanceof AppCenterError ? cause.detail : message)),
  }),
  hint: appcenterHint,
  // Who asks (X-API-Token) decides which releases are visible.
  answerCache: () => ({ vary: ['x-api-token'] }),
};
