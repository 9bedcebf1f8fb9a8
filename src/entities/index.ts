import { Company } from './company.entity.js';
import { LoginAttempt } from './login-attempt.entity.js';
import { Module } from './module.entity.js';
import { Permission } from './permission.entity.js';
import { RevokedToken } from './revoked-token.entity.js';
import { Role } from './role.entity.js';
import { User } from './user.entity.js';

export { Company, LoginAttempt, Module, Permission, RevokedToken, Role, User };

export const entities = [Company, LoginAttempt, Module, Permission, RevokedToken, Role, User];
