import { API_VERSION } from '../../spec/index.js';
import type { GroupHandlers } from '../context.js';

export const pingHandlers: GroupHandlers = {
  ping: () => ({ app: 'newsflow', version: API_VERSION }),
};
