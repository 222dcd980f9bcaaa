import type { Tool } from '../../tool.js';

export const mailTools: Tool[] = [];
