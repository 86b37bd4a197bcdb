import type { AreaDefinition } from '../platform/area.js';
import { archiveArea } from './archive/index.js';
import { marketcheckArea } from './marketcheck/index.js';
import { appcenterArea } from './appcenter/index.js';
import { agcoArea } from './agco/index.js';
import { dkanArea } from './dkan/index.js';

/** Areas A to E; --area-ports hands out ports in this order too. */
export const AREAS: readonly AreaDefinition[] = [archiveArea, marketcheckArea, appcenterArea, agcoArea, dkanArea];
