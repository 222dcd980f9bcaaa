import type { SalesCompany, SalesPerson } from './state.js';

/** Sample B2B data: six companies and the people working there. */

const company = (
  n: number,
  name: string,
  domain: string,
  industry: string,
  subIndustry: string,
  size: [number, number],
  revenueRange: string,
  founded: number,
  city: string,
  state: string | null,
  country: string,
  iso2: string,
  technologies: string[],
  description: string,
): SalesCompany => ({
  id: `sbx-company-${String(n).padStart(4, '0')}`,
  name,
  domain,
  fqdn: `www.${domain}`,
  description,
  industry,
  subIndustry,
  employees: { min: size[0], max: size[1] },
  size: `${size[0]}-${size[1]}`,
  revenueRange,
  founded,
  location: { city, state, country, countryIso2: iso2 },
  technologies,
  socialLinks: { linkedin: `https://www.linkedin.com/company/${name.toLowerCase().replace(/\W+/g, '-')}`, twitter: `https://twitter.com/${name.toLowerCase().replace(/\W+/g, '')}`, crunchbase: null },
  logoUrl: `https://logos.sbx.example/${domain}.png`,
});

export const COMPANIES: SalesCompany[] = [
  company(1, 'Acme Corporation', 'acme.example', 'Manufacturing', 'Industrial Machinery', [201, 500], '$50M - $100M', 1998, 'Austin', 'Texas', 'United States', 'US', ['Salesforce', 'AWS', 'Slack'], 'Maker of industrial machinery and field equipment.'),
  company(2, 'Fabrikam', 'fabrikam.example', 'Retail', 'Apparel', [1001, 5000], '$500M - $1B', 1986, 'San Francisco', 'California', 'United States', 'US', ['SAP', 'Azure', 'Microsoft 365'], 'Apparel retailer with 300 stores in North America.'),
  company(3, 'Contoso', 'contoso.example', 'Software', 'Enterprise Software', [501, 1000], '$100M - $250M', 2004, 'Seattle', 'Washington', 'United States', 'US', ['Microsoft 365', 'GitHub', 'Vercel', 'Stripe'], 'Enterprise collaboration software.'),
  company(4, 'Northwind Traders', 'northwind.example', 'Wholesale', 'Food & Beverage', [51, 200], '$10M - $50M', 1994, 'London', null, 'United Kingdom', 'GB', ['QuickBooks', 'Shopify'], 'Specialty food importer and distributor.'),
  company(5, 'Globex', 'globex.example', 'Energy', 'Renewables', [5001, 10000], '$1B - $10B', 1979, 'Berlin', null, 'Germany', 'DE', ['SAP', 'Google Cloud', 'Snowflake'], 'Utility-scale solar and wind operator.'),
  company(6, 'Initech', 'initech.example', 'Software', 'IT Services', [11, 50], '$1M - $10M', 2011, 'Toronto', 'Ontario', 'Canada', 'CA', ['Jira', 'AWS'], 'Software consultancy for banks.'),
];

const person = (
  n: number,
  firstName: string,
  lastName: string,
  jobTitle: string,
  seniority: string,
  departments: string[],
  companyIndex: number,
  phones: Array<{ number: string; phoneType: 'mobile' | 'direct' | 'phone' }>,
  personalEmail?: string,
): SalesPerson => {
  const c = COMPANIES[companyIndex]!;
  const handle = `${firstName}.${lastName}`.toLowerCase();
  return {
    id: `sbx-person-${String(n).padStart(4, '0')}`,
    firstName,
    lastName,
    fullName: `${firstName} ${lastName}`,
    jobTitle,
    seniority,
    departments,
    location: { ...c.location },
    emailAddresses: [
      { email: `${handle}@${c.domain}`, emailType: 'work', emailConfidence: 'A+' },
      ...(personalEmail ? [{ email: personalEmail, emailType: 'personal' as const, emailConfidence: 'B' }] : []),
    ],
    phoneNumbers: phones.map((p) => ({ ...p, doNotCall: false })),
    socialLinks: { linkedin: `https://www.linkedin.com/in/${handle.replace('.', '-')}-sbx` },
    company: { id: c.id, name: c.name, domain: c.domain },
    updatedAt: '2026-10-01T00:00:00Z',
  };
};

export const PEOPLE: SalesPerson[] = [
  person(1, 'Sam', 'Rivera', 'VP Operations', 'VP', ['Operations'], 0, [{ number: '+1 512 555 0177', phoneType: 'mobile' }]),
  person(2, 'Tom', 'Becker', 'Director of Sales', 'Director', ['Sales'], 0, [{ number: '+1 512 555 0190', phoneType: 'direct' }]),
  person(3, 'Jordan', 'Lee', 'Procurement Lead', 'Manager', ['Procurement'], 1, [{ number: '+1 415 555 0142', phoneType: 'mobile' }], 'jordan.lee.home@mail.example'),
  person(4, 'Dana', 'Ortiz', 'Chief Executive Officer', 'C-Level', ['Executive'], 2, [{ number: '+1 206 555 0150', phoneType: 'direct' }]),
  person(5, 'Priya', 'Patel', 'Design Manager', 'Manager', ['Design'], 2, []),
  person(6, 'Mia', 'Wong', 'Chief Financial Officer', 'C-Level', ['Finance'], 3, [{ number: '+44 20 7946 0958', phoneType: 'phone' }]),
  person(7, 'Lena', 'Fischer', 'Chief Technology Officer', 'C-Level', ['Engineering'], 4, [{ number: '+49 30 901820', phoneType: 'direct' }]),
  person(8, 'Ravi', 'Kumar', 'Engineering Manager', 'Manager', ['Engineering'], 5, []),
];

/** More people, so that searches page: six roles at each of the six companies (every other one with a phone). */
const FIRST = ['Alex', 'Blake', 'Casey', 'Drew', 'Emery', 'Finley', 'Gray', 'Harper', 'Indra', 'Jesse', 'Kai', 'Logan', 'Morgan', 'Noel', 'Oakley', 'Parker', 'Quinn', 'Reese', 'Sage', 'Taylor', 'Umar', 'Vera', 'Wren', 'Yael', 'Zion', 'Ari', 'Bo', 'Cam', 'Dale', 'Eli', 'Fran', 'Gale', 'Hayden', 'Jules', 'Kit', 'Lane'];
const LAST = ['Adams', 'Baker', 'Chen', 'Diaz', 'Evans', 'Fox', 'Garcia', 'Hughes', 'Ito', 'Jones', 'Khan', 'Lopez', 'Moreau', 'Novak', 'Olsen', 'Park', 'Quist', 'Rossi', 'Silva', 'Tanaka', 'Ueda', 'Vance', 'Weber', 'Xu', 'Young', 'Zeller', 'Abbott', 'Brandt', 'Costa', 'Dunn', 'Ellis', 'Ford', 'Gold', 'Hale', 'Iverson', 'Jensen'];
const ROLES: Array<[string, string, string]> = [
  ['Software Engineer', 'Entry', 'Engineering'],
  ['Senior Software Engineer', 'Senior', 'Engineering'],
  ['Account Executive', 'Senior', 'Sales'],
  ['Marketing Manager', 'Manager', 'Marketing'],
  ['Data Engineer', 'Senior', 'Engineering'],
  ['Head of Sales', 'Director', 'Sales'],
];

PEOPLE.push(
  ...FIRST.map((first, i) => {
    const [title, seniority, department] = ROLES[Math.floor(i / 6)]!;
    const phone = i % 2 === 0 ? [{ number: `+1 555 010 ${String(1000 + i)}`, phoneType: 'direct' as const }] : [];
    return person(101 + i, first, LAST[i]!, title, seniority, [department], i % 6, phone);
  }),
);
