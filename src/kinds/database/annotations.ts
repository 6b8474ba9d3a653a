// The engine honours these on any kind's children; the Database uses both.
export { CREATE_ONLY_ANNOTATION, KEEP_ON_DELETE_ANNOTATION } from '../../engine/kind';
