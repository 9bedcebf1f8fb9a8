import { BOUNDS, PAGE_BOUND } from '../../kernel/bounds.js';
import { ALL_ID_FORMS } from '../../kernel/ids.js';
import type { RowParam, Route } from '../route.js';
import { PAGINATION } from './fragments.js';

const roleId: RowParam = {
  type: 'id',
  idKind: 'role',
  idForms: ALL_ID_FORMS,
  description: 'Role id: numeric, base64 or encrypted',
};
const ROLE_FIELDS = 'id title created_at: createdAt updated_at: updatedAt';
const permissionIds: RowParam = { items: {}, description: 'Permission ids' };
const title: RowParam = { ...BOUNDS.role.title, description: 'Unique within the company' };

const permissionChange: Record<string, RowParam> = {
  permissions: {
    ...permissionIds,
    description: 'Permission ids; replaces the role permissions, an empty array clears them',
  },
  modules: {
    description: 'Alternative to permissions: per module, its permission ids',
    items: {
      fields: {
        module_id: {},
        permissions: permissionIds,
        permission_ids: permissionIds,
      },
    },
  },
  title: { description: 'Optional rename in the same request' },
};

export const roleRoutes: Route[] = [
  {
    operationId: 'listRoles',
    methods: ['GET'],
    paths: ['/api/roles'],
    tag: 'Roles',
    summary: 'List Roles',
    description: 'Roles of the company, newest first.',
    params: {
      query: {
        per_page: { ...PAGE_BOUND, description: 'Default 15, at most 100 (larger values are clamped)' },
        page: { ...PAGE_BOUND, description: 'Default 1' },
        search: { ...BOUNDS.search, description: 'Matches the role title' },
      },
    },
    document: `query ListRoles($search: String, $page: Int, $perPage: Int) {
      roles(search: $search, page: $page, perPage: $perPage) { records { ${ROLE_FIELDS} } ${PAGINATION} } }`,
    response: { field: 'roles', shape: 'envelope', data: true },
  },
  {
    operationId: 'createRole',
    methods: ['POST'],
    paths: ['/api/roles'],
    tag: 'Roles',
    summary: 'Create Role',
    params: { body: { title, permissions: permissionIds } },
    document: `mutation CreateRole($title: String!, $permissions: [Int!]) {
      createRole(input: { title: $title, permissions: $permissions }) { ${ROLE_FIELDS} } }`,
    response: { field: 'createRole', shape: 'envelope', message: 'Role created successfully.', data: true },
    status: 201,
  },
  {
    operationId: 'updateRole',
    answers: [409],
    methods: ['PUT'],
    paths: ['/api/roles/{id}', '/api/roles/update/{id}'],
    tag: 'Roles',
    summary: 'Update Role',
    params: { path: { id: roleId }, body: { title } },
    document: 'mutation UpdateRole($id: ID!, $title: String!) { updateRole(id: $id, input: { title: $title }) { id } }',
    response: { field: 'updateRole', shape: 'envelope', message: 'Role updated successfully.' },
  },
  {
    operationId: 'updateRolePermissions',
    answers: [409],
    methods: ['PUT', 'POST'],
    paths: ['/api/roles/{id}/permissions'],
    tag: 'Roles',
    summary: 'Update Role Permissions',
    params: { path: { id: roleId }, body: permissionChange },
    document: `mutation UpdateRolePermissions($id: ID!, $permissions: [Int!], $modules: [ModulePermissionsInput!], $title: String) {
      updateRolePermissions(id: $id, input: { permissions: $permissions, modules: $modules, title: $title }) { id } }`,
    response: { field: 'updateRolePermissions', shape: 'envelope', message: 'Role permissions updated successfully.' },
  },
  {
    operationId: 'getRolePermissions',
    methods: ['GET'],
    paths: ['/api/roles/{id}/permissions'],
    tag: 'Roles',
    summary: 'Get Role Permissions',
    description: 'Every module with its permissions, each marked as held by the role or not.',
    params: { path: { id: roleId } },
    document: `query RolePermissions($id: ID!) { rolePermissions(id: $id) {
      role { ${ROLE_FIELDS} }
      modules { module_id: moduleId slug name permissions { id slug name granted } }
    } }`,
    response: { field: 'rolePermissions', shape: 'envelope', data: true },
  },
  {
    operationId: 'deleteRole',
    answers: [409],
    methods: ['DELETE'],
    paths: ['/api/roles/{id}', '/api/roles/delete/{id}'],
    tag: 'Roles',
    summary: 'Delete Role',
    description: 'Refused with 409 while users hold the role, and for the Owner role.',
    params: { path: { id: roleId } },
    document: 'mutation DeleteRole($id: ID!) { deleteRole(id: $id) }',
    response: { field: 'deleteRole', shape: 'envelope', message: 'Role deleted successfully.' },
  },
  {
    operationId: 'listPermissionModules',
    methods: ['GET'],
    paths: ['/api/permissions'],
    tag: 'Roles',
    summary: 'Permission catalog',
    description: 'Every module with its permissions.',
    params: {},
    document: 'query PermissionModules { permissionModules { id slug name permissions { id slug name } } }',
    response: { field: 'permissionModules', shape: 'envelope', data: true },
  },
];
