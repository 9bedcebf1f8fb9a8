import 'reflect-metadata';
import { MikroORM } from '@mikro-orm/postgresql';
const { ormConfig } = await import('/work/main/dist/src/mikro-orm.config.js');
const orm = await MikroORM.init(ormConfig('postgres://postgres@127.0.0.1:5432/sb_gen'));
await orm.getMigrator().up();
const r = await orm.getMigrator().createMigration(undefined, false, false, process.argv[2]);
console.log(r.fileName);
await orm.close();
