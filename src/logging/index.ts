export { uniqueKeys } from './unique-keys.js';
