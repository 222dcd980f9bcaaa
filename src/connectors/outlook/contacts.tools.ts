import type { Tool } from '../../tool.js';

export const contactsTools: Tool[] = [];
