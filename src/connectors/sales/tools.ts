import type { Tool } from '../../tool.js';
import { enrichCompanies, enrichContacts } from './enrich.tools.js';
import { findCompany, findContact } from './lookup.tools.js';
import { searchCompanies, searchContacts } from './search.tools.js';

/** The sales-intelligence connector's pre-built steps (the API Call step comes from connectors/api-call.ts). */
export const salesTools: Tool[] = [findContact, enrichContacts, searchContacts, findCompany, enrichCompanies, searchCompanies];
