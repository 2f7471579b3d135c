// Over gRPC the OM cannot tell a re-sent write from a new one (its gRPC server makes up a random
// client id per request, so Ratis's retry cache never matches). A write whose first attempt timed
// out or lost its connection may have been applied; sent again (to the same OM or, after a
// failover, to the new leader) it then meets its own effect. These are the answers that mean
// "your earlier attempt did it", taken as success only for such a re-send.
import type { om } from '../proto/wire.js';

type Command = keyof typeof om.Type;

const ALREADY_DONE: Partial<Record<Command, readonly string[]>> = {
  CreateVolume: ['VOLUME_ALREADY_EXISTS'],
  CreateBucket: ['BUCKET_ALREADY_EXISTS'],
  DeleteVolume: ['VOLUME_NOT_FOUND'],
  DeleteBucket: ['BUCKET_NOT_FOUND'],
  // The open key was committed and is gone from the open-key table.
  CommitKey: ['KEY_NOT_FOUND'],
  // The source moved already (and the target is there).
  RenameKey: ['KEY_NOT_FOUND', 'KEY_ALREADY_EXISTS'],
  DeleteKey: ['KEY_NOT_FOUND'],
};

/** Whether `status` answering a re-sent `command` means the earlier attempt applied it. */
export function isOwnEarlierEffect(command: Command, status: string): boolean {
  return ALREADY_DONE[command]?.includes(status) ?? false;
}

/** The commands whose re-sent answers are tolerated, with those answers (for docs and tests). */
export const RESEND_TOLERATED_ANSWERS: Readonly<Partial<Record<Command, readonly string[]>>> =
  Object.freeze(ALREADY_DONE);
