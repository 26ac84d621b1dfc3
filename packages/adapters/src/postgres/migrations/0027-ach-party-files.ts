import { sql, type Kysely } from 'kysely'

/** The schema of each world: the live world's is the migrations' own, the test world's `lendgate_test` (0017). */
const WORLDS = [undefined, 'lendgate_test'] as const

/**
 * A party's own bank files (decision 147): on a test clock, a party's debits go in files of its
 * own, made by its clock's advance. `ach_files.party_id` says whose file it is (null: the world's
 * cut-offs); the day's 36 file id modifiers are counted per party (the world's files together),
 * so parties advancing through the same dates never run out. The sandbox bank's mailbox files
 * each file under its party too, so a clock's advance takes only its party's answers.
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  for (const schema of WORLDS) {
    const world = schema === undefined ? db : db.withSchema(schema)
    await world.schema.alterTable('ach_files').addColumn('party_id', 'uuid').execute()
    await world.schema.alterTable('ach_files').dropConstraint('ach_files_creation_date_modifier').execute()
    await world.schema.createIndex('ach_files_creation_date_modifier').on('ach_files').columns(['creation_date', 'file_id_modifier']).unique().where(sql.ref('party_id'), 'is', null).execute()
    await world.schema
      .createIndex('ach_files_party_creation_date_modifier')
      .on('ach_files')
      .columns(['party_id', 'creation_date', 'file_id_modifier'])
      .unique()
      .where(sql.ref('party_id'), 'is not', null)
      .execute()
    // A party's unfinished files, and the world's: what a run finishes first (`unfinishedBefore`).
    await world.schema
      .createIndex('ach_files_unfinished_idx')
      .on('ach_files')
      .columns(['party_id', 'run_key'])
      .where(sql<boolean>`status not in ('written', 'empty')`)
      .execute()
    // The mailbox files a file under the party of the origination file of its name.
    await world.schema.createIndex('ach_files_name_idx').on('ach_files').column('name').where(sql.ref('name'), 'is not', null).execute()
    await world.schema.alterTable('ach_sandbox_files').addColumn('party_id', 'uuid').execute()
    await world.schema.dropIndex('ach_sandbox_files_next_answer_idx').execute()
    await world.schema
      .createIndex('ach_sandbox_files_next_answer_idx')
      .on('ach_sandbox_files')
      .columns(['party_id', 'next_answer_on', 'put_at', 'name'])
      .where(sql<boolean>`next_answer_on is not null`)
      .execute()
  }
}

/**
 * Back to one set of modifiers per day: the parties' own files (the test world's, test data) and
 * their entries and mailbox copies are deleted first, as they could not share the world's.
 */
export const down = async (db: Kysely<unknown>): Promise<void> => {
  for (const schema of WORLDS) {
    const world = schema === undefined ? db : db.withSchema(schema)
    const tables = world.withTables<{ ach_files: { id: string; party_id: string | null }; ach_entries: { file_id: string }; ach_sandbox_files: { party_id: string | null } }>()
    await tables.deleteFrom('ach_entries').where('file_id', 'in', tables.selectFrom('ach_files').select('id').where('party_id', 'is not', null)).execute()
    await tables.deleteFrom('ach_files').where('party_id', 'is not', null).execute()
    await tables.deleteFrom('ach_sandbox_files').where('party_id', 'is not', null).execute()
    await world.schema.dropIndex('ach_files_name_idx').execute()
    await world.schema.dropIndex('ach_files_unfinished_idx').execute()
    await world.schema.dropIndex('ach_sandbox_files_next_answer_idx').execute()
    await world.schema.alterTable('ach_sandbox_files').dropColumn('party_id').execute()
    await world.schema.createIndex('ach_sandbox_files_next_answer_idx').on('ach_sandbox_files').columns(['next_answer_on', 'put_at', 'name']).where(sql<boolean>`next_answer_on is not null`).execute()
    await world.schema.dropIndex('ach_files_party_creation_date_modifier').execute()
    await world.schema.dropIndex('ach_files_creation_date_modifier').execute()
    await world.schema.alterTable('ach_files').dropColumn('party_id').execute()
    await world.schema.alterTable('ach_files').addUniqueConstraint('ach_files_creation_date_modifier', ['creation_date', 'file_id_modifier']).execute()
  }
}
