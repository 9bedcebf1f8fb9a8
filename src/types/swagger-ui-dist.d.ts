declare module 'swagger-ui-dist' {
  const swaggerUi: { getAbsoluteFSPath(): string };
  export default swaggerUi;
}
