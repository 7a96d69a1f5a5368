/// Fetches a page.
#[tool(name = "web.fetch", open_world, icon = "https://example.com/fetch.svg")]
async fn fetch(cx: &Context, url: String) -> Result<Page, FetchError> {
    download(cx, &url).await
}
