import type { TriggerKind } from '../../contracts/triggers.js';
import { newGist, newMention, newWatcher } from './polled.js';
import { newComment, newIssue, newLabelOnIssue, newPullRequest, newPullRequestReview, newReviewRequest, updatedIssue, updatedPullRequest } from './triggers.issues.js';
import { newCardInColumn, newCollaborator, newWorkflowJob, newWorkflowRun, projectItemStatusChanged } from './triggers.ops.js';
import { newBranch, newCommit, newDiscussion, newDiscussionComment, newFork, newPush, newRelease, newRepository, newStar, newTag } from './triggers.repo.js';

/**
 * The specification's code-hosting triggers (6.2), named github.<kind>: webhook kinds declared in
 * triggers.repo.ts, triggers.issues.ts and triggers.ops.ts (see triggers.define.ts), polled ones in polled.ts.
 */

/** Every GitHub trigger kind, in the specification's order (table 6.2). */
export const githubKinds: TriggerKind[] = [
  newRepository,
  newFork,
  newStar,
  newWatcher,
  newTag,
  newIssue,
  updatedIssue,
  newPullRequest,
  updatedPullRequest,
  newComment,
  newLabelOnIssue,
  newReviewRequest,
  newPullRequestReview,
  newCommit,
  newPush,
  newBranch,
  newWorkflowRun,
  newWorkflowJob,
  newCollaborator,
  newMention,
  projectItemStatusChanged,
  newCardInColumn,
  newRelease,
  newGist,
  newDiscussion,
  newDiscussionComment,
];
