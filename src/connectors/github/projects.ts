import { InputError } from '../../errors.js';
import type { Api } from '../../http/client.js';
import { graphql } from './calls.js';

/** Projects v2 over GraphQL: find a project's single-select field, find or add an item, set its option. */

export interface ProjectRef {
  owner: string;
  number: number;
  /** The input field to blame when the project cannot be found. */
  field: 'project_url' | 'owner';
}

/** https://github.com/orgs/ORG/projects/5 or https://github.com/users/USER/projects/5 (a /views/N suffix is fine). */
export function parseProjectUrl(url: string): ProjectRef {
  const m = /^https:\/\/github\.com\/(?:orgs|users)\/([^/?#]+)\/projects\/(\d+)(?:[/?#].*)?$/.exec(url.trim());
  if (!m) throw new InputError(`"project_url" must look like https://github.com/orgs/ORG/projects/5 or https://github.com/users/USER/projects/5 (got ${JSON.stringify(url.slice(0, 120))}).`, 'project_url');
  return { owner: decodeURIComponent(m[1]!), number: Number(m[2]), field: 'project_url' };
}

/** https://github.com/OWNER/REPO/issues/7 or .../pull/7 (suffixes such as /files or #comment are fine). */
export function parseItemUrl(url: string): { owner: string; repo: string; number: number } {
  const m = /^https:\/\/github\.com\/([^/?#]+)\/([^/?#]+)\/(?:issues|pull)\/(\d+)(?:[/?#].*)?$/.exec(url.trim());
  if (!m) throw new InputError(`"item_url" must be an issue or pull request URL such as https://github.com/OWNER/REPO/issues/7 (got ${JSON.stringify(url.slice(0, 120))}).`, 'item_url');
  return { owner: decodeURIComponent(m[1]!), repo: decodeURIComponent(m[2]!), number: Number(m[3]) };
}

export interface SelectField {
  projectId: string;
  projectTitle: string;
  fieldId: string;
  options: Array<{ id: string; name: string }>;
}

const PROJECT_FIELD = `query($owner:String!,$number:Int!,$field:String!){repositoryOwner(login:$owner){... on ProjectV2Owner{projectV2(number:$number){id title field(name:$field){... on ProjectV2SingleSelectField{id options{id name}}}}}}}`;

/** The project's node id and its single-select field with the option ids. */
export async function selectField(api: Api, ref: ProjectRef, fieldName: string): Promise<SelectField> {
  type Answer = { repositoryOwner: { projectV2?: { id: string; title: string; field: { id?: string; options?: SelectField['options'] } | null } } | null };
  const data = await graphql<Answer>(api, PROJECT_FIELD, { owner: ref.owner, number: ref.number, field: fieldName });
  if (!data.repositoryOwner) throw new InputError(`No GitHub user or organization "${ref.owner}"; check ${ref.field}.`, ref.field);
  const project = data.repositoryOwner.projectV2!;
  if (!project.field?.id) {
    throw new InputError(`Project "${project.title}" has no single-select field named "${fieldName}"; name the field that holds the status in field_name.`, 'field_name');
  }
  return { projectId: project.id, projectTitle: project.title, fieldId: project.field.id, options: project.field.options ?? [] };
}

/** The option with this visible name: exact, else ignoring case and spacing; unknown names are refused with the valid ones. */
export function optionNamed(field: SelectField, fieldName: string, status: string): { id: string; name: string } {
  const norm = (s: string) => s.trim().replace(/\s+/g, ' ').toLowerCase();
  const hit = field.options.find((o) => o.name === status) ?? field.options.find((o) => norm(o.name) === norm(status));
  if (!hit) {
    throw new InputError(
      `"${status}" is not a ${fieldName} option of project "${field.projectTitle}". Valid names: ${field.options.map((o) => o.name).join(', ') || '(none)'}.`,
      'status',
    );
  }
  return hit;
}

type ItemNode = { id: string; project: { id: string }; fieldValueByName: { name?: string } | null };
type Content = { __typename: string; id?: string; projectItems?: { nodes: ItemNode[] } };

const ITEMS = `id projectItems(first:100){nodes{id project{id} fieldValueByName(name:$field){... on ProjectV2ItemFieldSingleSelectValue{name}}}}`;
const CONTENT_BY_URL = `query($owner:String!,$repo:String!,$number:Int!,$field:String!){repository(owner:$owner,name:$repo){issueOrPullRequest(number:$number){__typename ... on Issue{${ITEMS}} ... on PullRequest{${ITEMS}}}}}`;
const NODE = `query($id:ID!,$field:String!){node(id:$id){__typename ... on Issue{${ITEMS}} ... on PullRequest{${ITEMS}} ... on ProjectV2Item{id project{id} fieldValueByName(name:$field){... on ProjectV2ItemFieldSingleSelectValue{name}}}}}`;
const ADD = `mutation($project:ID!,$content:ID!){addProjectV2ItemById(input:{projectId:$project,contentId:$content}){item{id}}}`;

export interface FoundItem {
  itemId: string;
  previous: string | null;
  added: boolean;
}

/**
 * The project item for an issue/PR URL, a content node id, or an item id (PVTI_…). An issue or pull
 * request that is not in the project yet is added to it, since setting its status implies it belongs there.
 */
export async function findOrAddItem(api: Api, projectId: string, fieldName: string, item: { url?: string; id?: string }): Promise<FoundItem> {
  let content: Content | null;
  if (item.url) {
    const { owner, repo, number } = parseItemUrl(item.url);
    content = (await graphql<{ repository: { issueOrPullRequest: Content | null } | null }>(api, CONTENT_BY_URL, { owner, repo, number, field: fieldName })).repository?.issueOrPullRequest ?? null;
  } else {
    const node = (await graphql<{ node: (Content & Partial<ItemNode>) | null }>(api, NODE, { id: item.id, field: fieldName })).node;
    if (node?.__typename === 'ProjectV2Item') {
      if (node.project!.id !== projectId) throw new InputError(`Project item "${item.id}" belongs to another project; pass the issue or pull request (item_url) instead.`, 'item_id');
      return { itemId: node.id!, previous: node.fieldValueByName?.name ?? null, added: false };
    }
    content = node;
  }
  if (!content?.id || !content.projectItems) {
    throw new InputError(`${item.url ? `"${item.url}"` : `"${item.id}"`} is not an issue or pull request.`, item.url ? 'item_url' : 'item_id');
  }
  const existing = content.projectItems.nodes.find((n) => n.project.id === projectId);
  if (existing) return { itemId: existing.id, previous: existing.fieldValueByName?.name ?? null, added: false };
  const added = await graphql<{ addProjectV2ItemById: { item: { id: string } } }>(api, ADD, { project: projectId, content: content.id });
  return { itemId: added.addProjectV2ItemById.item.id, previous: null, added: true };
}

const SET = `mutation($project:ID!,$item:ID!,$field:ID!,$option:String!){updateProjectV2ItemFieldValue(input:{projectId:$project,itemId:$item,fieldId:$field,value:{singleSelectOptionId:$option}}){projectV2Item{id}}}`;

export async function setOption(api: Api, projectId: string, itemId: string, fieldId: string, optionId: string): Promise<void> {
  await graphql(api, SET, { project: projectId, item: itemId, field: fieldId, option: optionId });
}
