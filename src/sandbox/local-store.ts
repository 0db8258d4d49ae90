/**
 * The sandbox's store in a directory, acted on with no server: what pay's sandbox commands do when
 * no sandbox of the user's is running, and what the library's controls do beside its server. Each
 * opens the store of `dir`, acts in one transaction and closes it. The CLI loads this module
 * through the entry (index.ts, loadLocalStore) only when it needs it.
 */

export { businessOf } from './domain/business.js'
export type { Settled } from './domain/payment.js'
export { ClockRefused, clockIn, moveClockIn } from './handlers/billing/clock.js'
export {
  checkFixtures,
  FixtureSyntaxError,
  FixturesInvalid,
  fixtureShapeErrors,
  parseFixtures,
  type Seeded,
  seedIn,
} from './handlers/double/fixtures.js'
export {
  addWebhookIn,
  deliveriesIn,
  type Notified,
  removeWebhookIn,
  resendIn,
  settleLinkIn,
  settleNotifyingIn,
  webhooksIn,
} from './handlers/notify/local.js'
export { holdsBusinessIn, linkPaidIn, resetSandbox } from './store/local.js'
export {
  deleteSnapshot,
  listSnapshots,
  restoreSnapshot,
  SnapshotError,
  type SnapshotInfo,
  saveSnapshot,
} from './store/snapshots.js'
