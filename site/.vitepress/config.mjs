// The sample documentation site: VitePress, with the highwater-playground
// package served as static files from public/highwater-playground/ (put there
// by scripts/docs-site.mjs from the installed tarball).
import { defineConfig } from 'vitepress';

export default defineConfig({
  title: 'Kafka replication, by example',
  description: 'Lessons on Kafka partition replication with live Highwater playgrounds',
  cleanUrls: false,
  // public/ holds the installed package (its README is not a page of the site)
  // and the lessons in the tour format (public/lessons/*.json), served as they are.
  srcExclude: ['public/**', 'README.md'],
  // <highwater-playground> is a custom element: Vue must leave it to the browser.
  vue: { template: { compilerOptions: { isCustomElement: (tag) => tag.startsWith('highwater-') } } },
  locales: {
    root: {
      label: 'English',
      lang: 'en',
      themeConfig: {
        nav: [
          { text: 'The high watermark', link: '/' },
          { text: 'Why acks=1 can lose a write', link: '/acks-1-loss' },
          { text: 'Embedding with an iframe', link: '/iframe' },
        ],
        sidebar: [
          {
            text: 'Lessons',
            items: [
              { text: 'The high watermark', link: '/' },
              { text: 'Why acks=1 can lose a write', link: '/acks-1-loss' },
              { text: 'Embedding with an iframe', link: '/iframe' },
            ],
          },
        ],
      },
    },
    'zh-hans': {
      label: '简体中文',
      lang: 'zh-Hans',
      link: '/zh-hans/',
      title: 'Kafka 副本同步实例',
      description: '用 Highwater 演示 Kafka 分区副本同步的课程',
      themeConfig: {
        nav: [
          { text: '高水位', link: '/zh-hans/' },
          { text: '为什么 acks=1 会丢数据', link: '/zh-hans/acks-1-loss' },
        ],
        sidebar: [
          {
            text: '课程',
            items: [
              { text: '高水位', link: '/zh-hans/' },
              { text: '为什么 acks=1 会丢数据', link: '/zh-hans/acks-1-loss' },
            ],
          },
        ],
        outline: { label: '本页内容' },
        docFooter: { prev: '上一页', next: '下一页' },
        sidebarMenuLabel: '菜单',
        returnToTopLabel: '回到顶部',
        langMenuLabel: '切换语言',
        darkModeSwitchLabel: '外观',
        lightModeSwitchTitle: '切换到浅色模式',
        darkModeSwitchTitle: '切换到深色模式',
      },
    },
  },
});
