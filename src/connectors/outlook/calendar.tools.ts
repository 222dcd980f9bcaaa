import type { Tool } from '../../tool.js';

export const calendarTools: Tool[] = [];
