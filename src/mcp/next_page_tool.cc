// next_page: the rest of any long answer, a page at a time (page_store.h).
#include "mcp/tool_arguments.h"
#include "mcp/tools.h"

namespace gpuwhy::mcp {

const ToolSpec kNextPageTool{
    .name = "next_page",
    .title = "Next page of an answer",
    .description =
        "The next page of a long answer of any tool: give the cursor its last page ended "
        "with (\"next_page cursor: a3p2\"). The server keeps the last answers of the session; "
        "an old cursor says it expired.",
    .input_schema = R"json({
      "type": "object",
      "properties": {
        "cursor": {"type": "string", "description": "The cursor the previous page ended with"}
      },
      "required": ["cursor"],
      "additionalProperties": false
    })json",
    .run = [](simdjson::dom::object arguments, ToolContext& context) -> ToolResult {
      if (Status known = CheckKnownArguments(arguments, {"cursor"}); !known.ok()) {
        return ToolError(known.message());
      }
      StatusOr<std::optional<std::string>> cursor = ReadString(arguments, "cursor", true);
      if (!cursor.ok()) return ToolError(cursor.status().message());
      StatusOr<Page> page = context.pages.Next(**cursor);
      if (!page.ok()) return ToolError(page.status().message());
      // The server pages results; this one is a page already (server.cc keeps it whole).
      ToolResult result;
      result.text = std::move(page->text);
      result.page = Page{.text = {},
                         .index = page->index,
                         .count = page->count,
                         .next_cursor = std::move(page->next_cursor)};
      return result;
    },
};

}  // namespace gpuwhy::mcp
