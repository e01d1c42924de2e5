// A denied or failed tool call rejects with ToolCallError; the script decides what to do.
try {
  await tools.read_file({ path: '/etc/shadow' })
  return { leaked: true }
} catch (error) {
  if (error instanceof ToolCallError) return { refused: error.toolName, why: error.message }
  throw error
}
