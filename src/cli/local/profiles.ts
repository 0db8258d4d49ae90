import type { View } from '../../render/views.js'

/** Profiles as `pay profiles list|show` print them (config/profiles.ts keeps them). */
export const PROFILE_VIEW: View = {
  noun: 'profile',
  plural: 'profiles',
  listColumns: ['name', 'current', 'base_url', 'api_key', 'key_storage'],
  recordFields: ['name', 'current', 'base_url', 'api_key', 'key_storage', 'built_in'],
  idField: 'name',
}
