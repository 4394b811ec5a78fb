"""Intent classification: weighted cue words per intent, then decisions that use the slots found as evidence.

Cues are small grammars (verbs, nouns and question forms), not sentences. The decision order encodes what the
desk cares about most: money and bookings (progress, refund/return, cancel) before weather, comparing options,
booking, trip plans, recommendations and activity search. A sentence with no cue but travel slots is a follow-up
(the pending intent) or a search; a sentence with nothing travel-related is out of scope. A joining word (顺便,
另外 …, "and check …") splits a sentence into parts, each a request of its own when its own cue is strong.
"""

import re
from dataclasses import dataclass, field
from functools import lru_cache

Cue = tuple[re.Pattern, float]


def _cues(*pairs: tuple[str, float]) -> tuple[Cue, ...]:
    cues = tuple((re.compile(pattern, re.IGNORECASE), weight) for pattern, weight in pairs)
    _CUE_LISTS[id(cues)] = cues
    return cues


# The module's cue lists by identity: a compiled pattern hashes its whole program, too slow for a cache key.
_CUE_LISTS: dict[int, tuple[Cue, ...]] = {}


OUT_OF_SCOPE_CUES = _cues(
    (r"写(?:一|个|首|篇|段|份|封|点)?.{0,8}(?:诗|词|作文|文章|小说|代码|程序|脚本|函数|周报|日报|简历|求职信|情书|歌词|论文|文案|检讨|演讲稿)", 6),
    (r"诗歌|一首诗|作诗|对联|藏头诗|代码|编程|python|javascript|java\b|c\+\+|golang|sql语句|排序算法|快速排序|冒泡排序|算法题", 6),
    (r"股票|股市|基金|炒股|大盘|涨停|跌停|a股|比特币|加密货币|币圈|理财产品|汇率", 6),
    (r"外卖|点餐|点个?.{0,4}(?:奶茶|咖啡|披萨|汉堡|炸鸡)|美团|饿了么", 6),
    (r"笑话|段子|脑筋急转弯|讲个故事|讲故事|翻译|足球|篮球|\bnba\b|世界杯|欧冠|英超|比分|彩票|双色球|算命|星座|运势|塔罗", 6),
    (r"作业|数学题|解方程|方程式|首都是|首都在哪|菜谱|怎么做(?:饭|菜)|红烧肉|减肥|电影|电视剧|追剧|综艺|打游戏|玩游戏|王者荣耀|原神", 6),
    (r"绝句|律诗|古诗|宋词|乘以|除以|等于多少|等于几|英文怎么说|英语怎么说|怎么翻译|拼音|请假条|邮件|吃什么好|吃啥|晚饭|午饭|早饭", 5),
    (r"你是谁|你叫什么|陪我聊|聊聊天|谈恋爱|考研|高考|面试|工资|房价|租房|装修|挂号|吃什么药|感冒了|限号|限行|违章", 5),
    # Things a desk for trips does not keep: alarms, meetings, subscriptions, taxes, books and films.
    (r"闹钟|闹铃|提醒事项|会议|开会|日程提醒|订阅|自动续费|会员|退税|个税|税务|报税|小说|图书|电子书|歌单|播客|计时器|倒计时|"
     r"几点了|现在几点|时差|餐厅|饭馆|订座|订餐|(?:买|推荐|换|选)(?:一?[款个部台])?.{0,8}(?:手机|电脑)|笔记本电脑|平板|耳机|短信|快递|取件|这首歌|歌词|谁唱的|心情|"
     r"(?:上午|下午|晚上|明天|今天|周[一二三四五六日])的会(?!员)", 6),
    (r"(?:tax|个税|退税|税).{0,12}(?:refund|到账|退)|\btax refund", 10),
    (r"\b(?:poem|poetry|haiku|sonnet|lyrics|essay|cover letter|resume|python|javascript|java|sql query|algorithm|"
     r"quicksort|bubble sort|stock|stocks|shares|crypto|bitcoin|forex|food delivery|takeout|takeaway|pizza|joke|jokes|"
     r"riddle|translate|translation|football|soccer|basketball|nba|world cup|premier league|lottery|horoscope|zodiac|"
     r"homework|math problem|equation|capital of|recipe|tv show|video game|meaning of life|"
     r"mortgage|who won|the score|write (?:me )?(?:some |a |an )?(?:code|program|script|function|song|story|email|letter|"
     r"essay|poem)|tell me a (?:story|joke)|what'?s your name|who are you|who invented|how many (?:planets|"
     r"countries|people live)|novels?|movies?|films?|songs?|music|podcasts?|tv series|anime|books? to read|"
     r"square root|calculate|who (?:is|was) the (?:president|king|queen|ceo|author|founder|prime minister)|"
     r"how (?:do|to|can) (?:i |you )?(?:cook|bake|fix|install|repair))\b", 6),
    (r"\b(?:what time is it|time zones?|timezone|time difference|restaurants?|dinner reservation|table for|thermostat|"
     r"air ?con(?:ditioner|ditioning)?|the lights|laptops?|smartphones?|under the weather|rain check|"
     r"alarms?|meetings?|appointments?|calendar|reminders?|subscriptions?|membership|(?<!-)timer|stopwatch|"
     r"tax(?:es)?|irs|novels?|audiobooks?|playlists?|spotify|netflix|youtube|exchange rates?|currency|stock price|"
     r"lyrics|recipe|podcast)\b", 6),
)  # fmt: skip

# -- a person instead of the assistant ---------------------------------------------------------------------------
# A request for a person is an asking word with a word for a person who serves (转人工, 我要找客服, 请真人来, talk to a
# human, connect me with an agent), a person-word asked to act (人工来处理, 客服回复我), or a complaint (投诉, 维权, I
# want to complain). Each kind of word is listed once; the patterns are built from them.
_ASK_ZH = r"转|转接|找|要|想|请|叫|让|联系|呼叫|需要|给我|帮我|换|喊|接通|来个|来一个"
_PERSON_ZH = (
    r"人工(?:客服|服务|坐席|台)?|客服(?:人员|专员|小姐姐|经理)?|真人|活人|工作人员|服务人员|值班人员|专员|主管|负责人|"
    r"(?:你们|你们的)?(?:领导|经理)"
)
_PERSON_EN = (
    r"(?:a |an |the |some |your |real |live |human |actual |customer )*(?:person|human|(?<!travel )agent|"
    r"representative|rep|operator|staff(?: member)?|customer (?:service|support|care)|support (?:team|staff)|"
    r"manager|supervisor|people|someone|somebody)"
)
_VERB_EN = (
    r"(?:talk|speak|chat|get through) (?:to|with) |(?:connect|transfer|put|pass) (?:me )?(?:to|through to|with|on to) |"
    r"(?:want|need|get|give me|ask for|request|like|prefer|call|reach|contact) (?:to (?:talk|speak|chat) (?:to|with) )?"
)
COMPLAINT = re.compile(
    r"投诉|举报|维权|申诉|告你们|要告|曝光你们|\b(?:complain(?:t|ts|ing|ed)?|file a grievance|escalat(?:e|ion))\b",
    re.I,
)
# "不用转人工", "no need for a human": the person is not asked for.
HANDOVER_DECLINED = re.compile(
    rf"(?:不用|不要|不需要|别|没必要|无需)(?:{_ASK_ZH})?(?:{_PERSON_ZH})|"
    rf"\b(?:no need (?:for|to)|don'?t (?:need|want) (?:to (?:talk|speak) (?:to|with) )?|not? (?:a |an )?)"
    rf"(?:{_PERSON_EN})\b",
    re.I,
)
# What the desk does itself for a complaint: money back, a return, a cancel ("投诉！要求退一半钱" is an after-sale
# request whose reason is the complaint, not a hand-over).
DESK_REMEDY = re.compile(r"退|赔|取消|\b(?:refund\w*|money back|reimburs\w*|compensat\w*|return\w*|cancel\w*)\b", re.I)
PERSON_CUES = _cues(
    (rf"(?:{_ASK_ZH}).{{0,3}}(?:{_PERSON_ZH})", 6),
    (rf"^(?:{_PERSON_ZH})(?:吧|呢|啊|呀|谢谢)?$|(?:{_PERSON_ZH})(?:来|过来|出来)?(?:处理|回复|回答|帮我|跟我|和我|联系我)|有没有(?:人工|客服|真人)", 6),
    (rf"(?:{_PERSON_ZH})(?:在哪|在哪里|在吗|怎么(?:找|联系|转)|电话|热线)", 6),
    (r"不(?:想|要)(?:跟|和)?机器人|机器人.{0,4}(?:没用|不行|不懂|太笨|说不清|不明白|搞不定|不靠谱)|别(?:用)?机器人", 6),
    (rf"\b(?:{_VERB_EN})(?:{_PERSON_EN})\b", 6),
    (r"\b(?:real|live|actual) (?:person|human|agent)|\bhuman (?:please|agent|support)|\bnot (?:a|the|this) (?:bot|robot|machine)"
     r"|\b(?:stop|no more) (?:the )?(?:bot|robot)\b", 6),
)  # fmt: skip
HANDOVER_CUES = _cues(*((p.pattern, w) for p, w in PERSON_CUES), (COMPLAINT.pattern, 6))


PROGRESS_STRONG = _cues(
    (r"进度|进展|到哪一?步|到哪了|到哪儿了|审批|审核|批下来|批了吗|处理到|处理(?:得)?怎么样|处理了吗|处理好了吗|处理完了吗|状态|"
     r"还没(?:有)?消息|没消息|没动静|有消息吗|有回复吗|没人处理|还没(?:有)?(?:退|到|收到|处理|批)|怎么还没|迟迟|退款呢|钱呢|"
     r"(?:什么|啥)时候(?:能|可以|才能)?(?:到账|退回来|退到|回来|到)|多久(?:能|才能|可以)?(?:到|退|回)|多长时间(?:能|才能)?(?:到|退)|"
     r"(?:退|到|批|处理|同意)了(?:没|吗)|同意了吗|同意没|(?:退|到|批)没退|有没有(?:退|到账|通过|批)", 4),
    (r"什么时候(?:能)?到账|到账了吗|到账没|还没到账|没(?:有)?(?:到账|收到(?:退款|钱))|有结果了吗|结果出来了吗|通过了吗|通过没|批准了吗|"
     r"(?:寄回|退回|退回去|寄回去|寄过去)的.{0,6}(?:收到没|收到了吗|收到了没)", 4),
    (r"\b(?:status|progress|any update|update on|any news|been approved|been processed|approved yet|processed yet|"
     r"still pending|where(?: is|'?s) (?:my|the) (?:refund|return|money)|what'?s (?:happening|going on) with|what happened (?:to|with)|"
     r"(?:gone|go|went) through|how(?:'?s| is| are)? (?:my|the) (?:refunds?|returns?|requests?|claims?|tickets?)"
     r"(?: for \S+)? (?:going|coming along|doing|getting on)|"
     r"been (?:paid|credited|issued|sent|refunded)|how long (?:will|does|until) (?:the |my )?(?:refund|return)|"
     r"when will i (?:get|receive) (?:my )?(?:money|refund)|has my (?:refund|return)|did my (?:refund|return)|"
     r"is my (?:refund|return)(?: request)?(?: for \S+)? (?:approved|done|processed|through|ready)|"
     r"(?:hasn'?t|has not|haven'?t|have not|didn'?t|did not|still not|not yet) (?:arrived|come|come through|been|received|got|"
     r"gotten|shown up)|still waiting|how long (?:will it|does it|until)|still no (?:refund|money|word|news)|"
     r"no refund yet|never got (?:my|the) (?:refund|money)|hit my (?:card|account|bank)|checking in on|"
     r"did you (?:get|receive) (?:it|them|the (?:boots|package|parcel|return|item)s?)|"
     r"(?:will|does|did) (?:the|my) (?:refund|money) (?:come|arrive|show up|go through))\b", 4),
)  # fmt: skip
PROGRESS_WEAK = _cues((r"怎么样了|到账|结果|approved|pending|yet\b|check on", 2))
AFTERSALE_CONTEXT = re.compile(r"退款|退货|退钱|申请|售后|工单|退回|refund|return|request|claim|ticket|审批", re.I)

AFTERSALE_CUES = _cues(
    (r"退款|退钱|退费|退货|退回|寄回|换货|申请售后|售后|把钱退|钱退|退全款|退一部分|退差价|赔偿|补偿", 4),
    (r"想退|要退|退了吧?|能退吗|可以退吗|能不能退|退一下|申请退|给我退|帮我退(?!掉|订|票)|怎么退", 3),
    (r"\b(?:refund|refunded|money back|reimburse(?:ment)?|compensation|chargeback|send (?:it |them )?back|"
     r"return (?:the |my |these |this |those |an? )?(?:items?|goods|products?|order|purchase|package|parcel|jacket|"
     r"shoes|boots|gear|tent|backpack|clothes|stuff|it|them)|make a return|a return for|return request|"
     r"(?:need|want|like|have|going) to return|return (?:my|the|this|that|these|those) (?:last |recent )?"
     r"(?:order|purchase|thing|one|item)|returns? (?:policy|process)|get (?:my|a) refund|refund (?:me|it|this|that)|"
     r"my money back|a refund|ship (?:it |them |this |that |these |those )?back|ship back|怎么 return|how (?:do i|to|can i) "
     r"return)\b", 4),
)  # fmt: skip
RETURN_GOODS = re.compile(
    r"退货|寄回|换货|退回(?:商品|去|给)|(?:衣服|鞋|外套|冲锋衣|羽绒服|帐篷|背包|睡袋|登山杖|装备|商品|东西|货|产品|包裹|"
    r"快递|手套|帽子|水壶|头灯|雪具|滑雪板|相机|充电宝).{0,12}(?:退|不合适|尺码|坏了|质量|不喜欢|不想要)|"
    r"不合适|尺码|太小|太大|换(?:个|一个|成|一)?.{0,3}(?:大|小)号|换一(?:件|双|个)|\b(?:return (?:the |my |these |this |those |an? )?(?:items?|goods|products?|package|parcel|jacket|"
    r"shoes|boots|gear|tent|backpack|clothes|stuff|it|them)|send (?:it |them )?back|exchange|doesn'?t fit|wrong size|"
    r"damaged|defective|broken)\b",
    re.I,
)
PARCEL = re.compile(r"快递|外卖|包裹|物流|\b(?:parcel|package|delivery|shipment|courier)\b", re.I)
ORDER_CONTEXT = re.compile(r"订单|单号|买的|购买|下单|商品|\border\b|purchase|bought", re.I)

CANCEL_CUES = _cues(
    (r"取消|退订|撤销|不订了", 4),
    (r"退掉|退票|退了(?:吧)?|不要了|不去了|不用了|作废|算了", 2.5),
    (r"\b(?:cancel(?:l?ed|l?ing|lation)?|call off)\b", 4),
    (
        r"\b(?:scrap|undo|nix|ditch|kill|drop)\b(?= (?:my|the|this|that)\b.{0,30}\b(?:booking|reservation|ticket|flight|"
        r"train|hotel|room)s?\b)",
        4,
    ),
    (r"\b(?:don'?t need (?:the|my|this|that)|no longer need|drop (?:my|the) (?:booking|reservation))\b", 3),
)
# A rating or price condition turns a recommendation into a search ("评分4.5以上", "rated above 4").
CONDITIONS = re.compile(
    r"评分|分以上|好评|口碑|门票|票价|(?:以下|以内|之内|不超过\d+元?)的(?:景点|活动|项目|博物馆|公园|展览)|"
    r"\b(?:rated|rating|stars? and up|reviews?|tickets? (?:under|below|less than)|admission|entrance fee)\b",
    re.I,
)
# A cancellation that already happened (the reason for a refund), not one asked for.
CANCELLED_ALREADY = re.compile(
    r"(?:取消了|被取消|给取消|临时取消|已经取消|停航了|停运了|关闭了)(?![吧吗]?\s*$)|"
    r"\b(?:was|were|got|been|has been|have been|is|are)\s+(?:cancell?ed|called off|postponed)\b",
    re.I,
)
ROUND_TRIP = re.compile(
    r"往返|来回|\b(?:round[- ]?trips?|returning|coming back|fly(?:ing)? back|back on|and back)\b", re.I
)
BOOK_VERB = re.compile(r"(?<!取消)(?:帮我订|给我订|我要订|预订|预定|订票|\bbook\b|\breserve\b)", re.I)
# A booking begun with no details: the verb alone, or a ticket or a booking as what is booked ("订票", "帮我订一下",
# "book a ticket", "make a booking"), never a thing the desk does not book ("订个房车").
BARE_BOOKING = re.compile(
    r"(?:订|买|预订|预定)\s*(?:一下|下|一?[张个份]|[两几]张)?\s*[吧吗呢啊呀哈]*\s*[?？!！.。]*$|票"
    r"|\b(?:tickets?|bookings?|reservations?|something)\b|\b(?:book|reserve)\b(?:\s+(?:for me|please))?\s*[?.!]*$",
    re.I,
)
BOOKING_CONTEXT = re.compile(r"预订|预定|订的|订了|行程|票|booking|reservation|reserved|booked|ticket", re.I)

WEATHER_CUES = _cues(
    (r"天气|气温|温度|下雨|下雪|降雨|降雪|降温|冷不冷|热不热|冷吗|热吗|冷么|多少度|几度|预报|刮风|大风|台风|雾霾|空气质量|紫外线|"
     r"晴天|阴天|穿什么|穿多少|带伞|会冷|太冷|很冷|零下|冻不冻|暖和吗|凉快吗|水温|多冷|多热|冷不|热不|有雪吗|下雪没|"
     r"湿度|潮湿|闷热|暴雨|雷阵雨|阵雨|雷雨|冰雹|暴雪|寒潮|降水|有雨|下不下雨|什么天|啥天|天儿|刮大风|沙尘暴|台风天|晴不晴|"
     r"风大不大|风大吗|几级风|气压|天汽|穿多厚|穿几件|有雾|大雾|起雾|会结冰|穿.{0,3}(?:羽绒服|棉服|棉袄|外套|大衣|毛衣|短袖|秋裤|厚衣服|薄衣服)", 4),
    (r"\b(?:weather|forecast|rain|raining|rainy|temperature|temperatures|how (?:cold|hot|warm|chilly)|degrees|humid|"
     r"windy|typhoon|umbrella|sunny|will it snow|snowing|what (?:should i|to) (?:wear|pack)|freezing|chilly|humidity|"
     r"storms?|stormy|thunder(?:storms?)?|lightning|hail(?:ing|storms?)?|tornado(?:es)?|hurricanes?|blizzards?|"
     r"snowfall|snowstorms?|drizzle|showers|heat ?wave|cold snap|frost|fog(?:gy)?|overcast|cloudy|uv index|"
     r"wind chill|sleet|monsoon|weather warnings?|(?:need|bring|pack|take) (?:a |an |my )?(?:jacket|coat|umbrella|"
     r"raincoat|scarf|sweater)|jacket weather|will it be (?:nice|warm|cold|hot|sunny|wet|dry)|"
     r"(?:will|gonna|going to|is it|does it|did it|could it)\s+(?:it\s+)?(?:snow|rain|hail|storm|pour|freeze))\b", 4),
    (r"\b(?:cold|hot(?![ -]?(?:spring|pot|el|test|spot|deal))|warm)\b", 2),
)  # fmt: skip

COMPARE_CUES = _cues(
    (r"比较一下|比较下|比较(?=哪|这|那|各|几|不同|交通|方案|价格|一下)|对比|比一比|比一下|哪个(?:方案|更|划算|便宜|快)", 4),
    (r"方案|套餐", 3),
    (r"往返|来回", 2),
    (r"(?:交通|机票|航班|高铁|火车)(?:和|加|\+|与|跟|及|、|,)(?:酒店|住宿)|机\+?酒|(?:往返|来回)(?:加|\+|和|带)(?:酒店|住宿)", 3),
    (r"出差", 1.5),
    (r"怎么搭|搭配|组合|最划算|最省钱|哪个划算|打包", 2),
    (r"(?:有|看看|看下|有没有|什么|哪些|几种|哪几种|各种|列出|给我)(?:哪些|什么|几种|几个)?(?:组合|搭配)|组合方案|怎么组合|"
     r"\b(?:compare (?:the )?(?:combinations?|combos?)|what combinations?|which combinations?|combinations? of)\b", 4),
    (r"\b(?:compare|comparison|options|plans)\b", 4),
    (r"\b(?:round[- ]?trips?|return trip|there and back|and back|returning|coming back|fly(?:ing)? back|back on)\b", 2),
    (r"比价|比个价|比一比价|哪个组合|\bplace to stay\b", 3),
    (r"\bcompare (?:the )?(?:prices?|fares?|flights?|options?)\b", 4),
    (r"\b(?:flights?|transport(?:ation)?|trains?)\s*(?:and|\+|&|plus|with)\s*(?:a |the )?hotels?\b|\bwith (?:a )?hotel\b", 3),
    (r"\bbusiness trip\b", 1.5),
    (r"\b(?:combo|combination|bundle|package deal|best value)\b", 2),
)  # fmt: skip

BOOK_CUES = _cues(
    (r"(?<!取消)(?<!取消我)(?:预订|预定|订购|帮我订|给我订|我要订|想订|订(?:一|个|张|两|间|几|间|晚|明|后|今|下|[0-9])|订(?=.{0,12}(?:票|机|航班|酒店|房|高铁|火车|动车|民宿)))(?!单)", 4),
    (r"买(?:一|两|几)?张?.{0,10}(?:票|机票)|抢票|出票|订票|开(?:个|间)房|入住", 3),
    (r"\b(?:book|booking a|reserve|make a reservation|get me (?:a|an|two)|buy (?:a |two )?tickets?|find me (?:a|an))\b", 4),
    (r"\b(?:i need|i want|i'd like|looking for|need)\s+(?:a |an |two |cheap |cheaper |the cheapest )?(?:flight|hotel|room|train|ticket)", 3),
    (r"多少钱|价格|票价|how much|prices?|fares?|cheapest|最便宜", 1),
    (r"要(?:一|两)张|需要(?:一|个|间)|找(?:个|家|一家)", 1.5),
)  # fmt: skip

PLAN_CUES = _cues(
    (r"行程|攻略|规划|日程|怎么玩|怎么安排|玩法", 3),
    (r"计划|安排|线路|路线", 2),
    (
        r"\b(?:itinerary|itineraries|day[- ]by[- ]day|how should (?:i|we) spend|what to do each day|travel guide|"
        r"map out|lay out|put together (?:a|an|my) (?:trip|plan|itinerary))\b",
        4,
    ),
    (r"\bplan(?:ning)?\b(?! b\b)|\bschedule\b|\broute\b", 3),
)
RECOMMEND_CUES = _cues(
    (r"推荐|热门|有什么好玩|有啥好玩|好玩的|哪里好玩|哪儿好玩|去哪(?:里|儿)?(?:玩|好|比较好|合适)|去哪|有啥好去|好去处|值得去|散心|"
     r"建议|适合.{0,6}(?:去|玩)|随便|出去玩|出去走走|哪些地方|什么地方|比较火|很火|最火|火爆|爆款|网红|人气|"
     r"(?:一个|个|找个|些).{0,8}地方", 3),
    (r"\b(?:recommend|recommendation|recommendations|suggest|suggestion|suggestions|ideas?|inspiration|"
     r"where (?:should|can|could|to|would you) (?:i |we )?go|where (?:do|does|did) (?:people|folks|locals|everyone|"
     r"most people|you)(?: usually| normally)? go|inspo|wanderlust|(?:good|nice|great|fun|cool) (?:place|spot)s?|where would you (?:recommend|suggest)|where to go|popular|trending|somewhere|anywhere|something fun|"
     r"fun things|what'?s good|what'?s hot|surprise me|top picks?|best places?|best spots?|best destinations?|"
     r"must[- ](?:see|visit|go)|where'?s good|where is good|where to travel)\b", 3),
)  # fmt: skip
SEARCH_CUES = _cues(
    (r"想去|去.{1,8}玩|活动|跟团|报团|有团|旅游团|团吗|团(?=[,.?!，。？！ ]|$)|一日游|日游|游玩|旅游|旅行|出游|度假|玩几天|玩", 2),
    (r"徒步|爬山|登山|滑雪|露营|潜水|冲浪|骑行|自驾|看雪|赏雪|看海|赏花|赏枫|温泉|亲子|漂流|观星|摄影|拍照|看日出|看极光|"
     r"观鸟|划船|游船|骑马|草原|古镇|门票|景点|景区|有没有|能去吗|可以去吗|值不值|便宜|海岛|岛游|周边游|自由行|跟团游|出境游|"
     r"国内游|短途|长途|游学|研学|夏令营|冬令营", 2),
    (r"\b(?:tours?|trips?|activities|activity|things to do|what (?:can|to|could) (?:i |we )?do|hiking|hike|trek(?:king)?|"
     r"ski(?:ing)?|camping|diving|surf(?:ing)?|cycling|visit(?:ing)?|travel(?:l?ing)?|excursions?|day trips?|"
     r"sightseeing|vacation|holiday|getaway|explore|show me|looking for|anything in|go to|going to|head to|"
     r"packages?|deals?|rafting|cruises?|boat rides?|snorkel(?:l?ing)?|kayak(?:ing)?|safari|workshops?|"
     r"classes|lessons?)\b", 2),
)  # fmt: skip


@dataclass
class Evidence:
    """What the slot parsers found, as evidence for the intent."""

    order_id: bool = False
    booking_id: bool = False
    destination: bool = False
    province: bool = False
    route: bool = False
    biz_types: list[str] = field(default_factory=list)
    date: bool = False
    date_range: bool = False
    days: bool = False
    budget: bool = False
    slots_only: bool = False
    # What a booking should be and what the dialogue says (issue 13).
    preferences: bool = False  # a want only a booking has: time of day, direct, seat, star, vendor, number
    sort: bool = False  # 便宜一点 / fastest
    pick: bool = False  # 第二个
    passengers: bool = False  # 张三 13800000000
    reason: bool = False  # 质量问题 / changed my mind
    rebook: bool = False  # 改签
    change_of_mind: bool = False  # 算了还是…
    excluded: bool = False  # 不想去三亚
    origin: bool = False  # 从上海 / from Shanghai: where a trip leaves from


@dataclass
class Decision:
    intent: str
    aftersale_action: str | None = None
    explicit: bool = True  # False when the intent came from slots alone (a follow-up may keep the pending one)
    confidence: float = 1.0  # how sure the reading is (see `_confidence`)
    alternatives: tuple[str, ...] = ()  # what else the sentence may be, most likely first


def _score(cues: tuple[Cue, ...], text: str) -> float:
    """How loudly a cue list speaks in the text (the decision, the confidence and the scorer's signals each ask the
    module's lists of the same sentence: asked once)."""
    key = id(cues)
    return _score_of(key, text) if _CUE_LISTS.get(key) is cues else _loudness(cues, text)


@lru_cache(maxsize=512)
def _score_of(key: int, text: str) -> float:
    return _loudness(_CUE_LISTS[key], text)


def _loudness(cues: tuple[Cue, ...], text: str) -> float:
    return sum(weight for pattern, weight in cues if pattern.search(text))


def about_tours(text: str) -> bool:
    """Whether the sentence is about tours or activities ("temple tours, 4+ stars": the stars are a rating)."""
    return _score(SEARCH_CUES, text) >= 2 and not re.search(r"酒店|宾馆|民宿|客栈|住|\b(?:hotels?|rooms?|stay)\b", text)


def asks_for_person(text: str) -> bool:
    """Whether the sentence asks for a person ("转人工", "talk to a human") or complains ("我要投诉") without asking
    for what the desk does itself (a refund, a return, a cancel: then that is the request and the complaint its
    reason), and does not say it needs none ("不用转人工")."""
    if HANDOVER_DECLINED.search(text):
        return False
    if _score(PERSON_CUES, text) >= 6:
        return True
    return bool(COMPLAINT.search(text)) and not DESK_REMEDY.search(text)


def cancel_words(text: str) -> bool:
    """Whether the sentence says to cancel something ("取消", "不要了", "cancel")."""
    return _score(CANCEL_CUES, text) >= 2.5


def cue_strength(text: str) -> float:
    """The strongest cue of any travel-desk intent in the text (0 when it only names slots: "赛里木湖", "三千")."""
    lists = (PROGRESS_STRONG, AFTERSALE_CUES, CANCEL_CUES, WEATHER_CUES, COMPARE_CUES, BOOK_CUES, PLAN_CUES,
             RECOMMEND_CUES, SEARCH_CUES)  # fmt: skip
    return max(_score(cues, text) for cues in lists)


def classify(text: str, ev: Evidence, pending_intent: str | None = None) -> Decision:
    """Choose the intent of one (normalised) sentence, with how sure that reading is."""
    decision = _decide(text, ev, pending_intent)
    decision.confidence, decision.alternatives = _confidence(decision, text, ev, pending_intent)
    return decision


# Cue lists by the intent they speak for (a reading's confidence weighs the best one against the others).
CUES_BY_INTENT = {
    "HANDOVER": HANDOVER_CUES,
    "QUERY_PROGRESS": PROGRESS_STRONG,
    "AFTERSALE": AFTERSALE_CUES,
    "CANCEL_BOOKING": CANCEL_CUES,
    "QUERY_WEATHER": WEATHER_CUES,
    "PLAN_ITINERARY": COMPARE_CUES,
    "BOOK": BOOK_CUES,
    "MAKE_TRAVEL_PLAN": PLAN_CUES,
    "RECOMMEND": RECOMMEND_CUES,
    "SEARCH_ACTIVITIES": SEARCH_CUES,
}


def _confidence(decision: Decision, text: str, ev: Evidence, pending: str | None) -> tuple[float, tuple[str, ...]]:
    """How sure the reading is, 0..1, and the other readings worth offering when it is not.

    A reading a word of its own speaks for is sure (0.9, 0.75 for a weaker word); one taken from slots alone while a
    task waits continues it (0.8); alone, the likeliest reading of a bare place (0.6), or of a bare route (0.4), and
    unsure (0.45) when another intent's words are there. Out of scope with no word against us but a place in it is a
    travel question we did not understand (0.3)."""
    scores = {name: _score(cues, text) for name, cues in CUES_BY_INTENT.items()}
    name = decision.intent
    places = ev.destination or ev.province or ev.route  # dates alone ("今天星期几") make no travel question
    if name == "OUT_OF_SCOPE":
        if _score(OUT_OF_SCOPE_CUES, text) >= 5 or not places:
            return 0.9, ()
        likely = sorted((n for n, s in scores.items() if s > 0), key=lambda n: -scores[n])
        return 0.3, tuple(likely[:2]) or _SLOT_GUESSES
    own = scores.get(name, 0.0)
    if name == "SEARCH_ACTIVITIES":
        own += scores["RECOMMEND"]  # "漠河有什么好玩的": words of recommending, about a place, ask for its activities
    # Slots alone: a follow-up, or the likeliest reading of a bare place; else as loud as the sentence's own words.
    confidence = (0.8 if pending else 0.6) if own == 0 else (0.9 if own >= 4 else 0.75)
    rivals = sorted(((s, n) for n, s in scores.items() if n != name and s > 0 and (name, n) not in _KIN), reverse=True)
    if rivals and own == 0 and rivals[0][0] >= 4 and not pending:
        # Read from slots alone while another intent's words are there: the rules' guess may be the wrong one. (A
        # reading with words of its own was chosen over its rivals by the rules on purpose.)
        confidence = min(confidence, 0.45)
    if own == 0 and ev.route and not pending and not ev.biz_types:
        # "北京到上海": a route and nothing said about it: a booking, or the round trip compared?
        return 0.4, tuple(n for n in ("BOOK", "PLAN_ITINERARY") if n != name)
    return confidence, tuple(n for _, n in rivals[:2])


def signals(text: str, ev: Evidence) -> list[str]:
    """What the readers found, as the fitted scorer's features: the evidence, and which cue lists fired (and
    loudly)."""
    found = [name for name, value in vars(ev).items() if value is True]
    found += [f"biz:{kind}" for kind in ev.biz_types]
    lists = {**CUES_BY_INTENT, "OUT_OF_SCOPE": OUT_OF_SCOPE_CUES, "PROGRESS_WEAK": PROGRESS_WEAK}
    for name, cues in lists.items():
        strength = _score(cues, text) if name != "HANDOVER" or asks_for_person(text) else 0
        if strength > 0:
            found.append(f"cue:{name}")
        if strength >= 4:
            found.append(f"cue:{name}:strong")
    return found


# Readings whose words come together by nature, the order of the rules deciding between them on purpose.
_KIN = {("SEARCH_ACTIVITIES", "RECOMMEND"), ("QUERY_PROGRESS", "AFTERSALE"), ("AFTERSALE", "CANCEL_BOOKING")}
# With places and dates but no word for what to do with them: the three things a traveller most often wants.
_SLOT_GUESSES = ("SEARCH_ACTIVITIES", "QUERY_WEATHER", "MAKE_TRAVEL_PLAN")


def _decide(text: str, ev: Evidence, pending_intent: str | None = None) -> Decision:
    if not text.strip() and not (ev.order_id or ev.booking_id):  # a bare "ORD-001" is masked to nothing
        return Decision("OUT_OF_SCOPE")
    if asks_for_person(text):  # 转人工, 投诉, talk to a human: before anything the sentence also names
        return Decision("HANDOVER")
    oos = _score(OUT_OF_SCOPE_CUES, text)
    progress = _score(PROGRESS_STRONG, text)
    progress_weak = _score(PROGRESS_WEAK, text)
    aftersale = _score(AFTERSALE_CUES, text)
    cancel = _score(CANCEL_CUES, text)
    weather = _score(WEATHER_CUES, text)
    compare = _score(COMPARE_CUES, text)
    book = _score(BOOK_CUES, text)
    plan = _score(PLAN_CUES, text)
    recommend = _score(RECOMMEND_CUES, text)
    search = _score(SEARCH_CUES, text)

    action = aftersale_action(text)
    travel_desk = max(progress, aftersale, cancel if (ev.biz_types or ev.booking_id) else 0, weather)
    if oos >= 5 and (travel_desk < 4 or oos > travel_desk) and not ev.order_id and not ev.booking_id:
        return Decision("OUT_OF_SCOPE")

    # Money and bookings first.
    has_aftersale_context = bool(AFTERSALE_CONTEXT.search(text)) or ev.order_id
    if progress >= 4 and (has_aftersale_context or ev.booking_id or progress >= 8):
        return Decision("QUERY_PROGRESS", action)
    weak_progress = progress_weak and has_aftersale_context and not ev.biz_types and (aftersale or ev.order_id)
    if (progress >= 4 or weak_progress) and (aftersale >= 3 or ev.order_id or has_aftersale_context):
        return Decision("QUERY_PROGRESS", action)
    travel_cues = max(weather, compare, book, plan, recommend, search)
    if progress >= 4 and not ev.biz_types and not ev.destination and travel_cues < 3 and not PARCEL.search(text):
        return Decision("QUERY_PROGRESS", action)  # "进度呢", "what's the status": the open request's progress
    booking_context = bool(ev.biz_types) or ev.booking_id or bool(BOOKING_CONTEXT.search(text))
    if aftersale >= 3 and CANCELLED_ALREADY.search(text) and not ev.booking_id:
        return Decision("AFTERSALE", action or "REFUND")  # "the tour was cancelled, I'd like a refund": the why
    if cancel >= 4 or (cancel >= 2.5 and booking_context):
        if ev.order_id and not ev.booking_id:
            return Decision("AFTERSALE", action or "REFUND")
        if aftersale >= 4 and ORDER_CONTEXT.search(text) and not ev.biz_types:
            return Decision("AFTERSALE", action or "REFUND")
        return Decision("CANCEL_BOOKING")
    if aftersale >= 3:
        if ev.order_id or ORDER_CONTEXT.search(text) or action == "RETURN":
            return Decision("AFTERSALE", action or "REFUND")
        if ev.booking_id or ev.biz_types:
            return Decision("CANCEL_BOOKING")
        return Decision("AFTERSALE", action or "REFUND")
    if ev.booking_id and max(weather, compare, book, plan, recommend, search) < 3:
        return Decision("CANCEL_BOOKING")
    if ev.order_id and max(weather, compare, book, plan, recommend, search) < 3:
        if pending_intent in ("AFTERSALE", "QUERY_PROGRESS"):
            return Decision(pending_intent, action, explicit=False)
        return Decision("AFTERSALE", action or "REFUND", explicit=False)

    # "算了还是高铁吧 便宜点", "东航早上的": a transport or hotel with what it should be is a booking.
    wants = ev.preferences or ev.sort or ev.change_of_mind or ev.passengers or ev.pick or ev.rebook
    if ev.biz_types and wants and max(weather, plan, recommend) < 3 and compare == 0:
        return Decision("BOOK", explicit=book >= 3 or ev.route)
    if weather >= 4 or (weather >= 2 and (ev.destination or ev.province) and max(book, plan, compare) < 3):
        return Decision("QUERY_WEATHER")

    # Options between an origin and a destination, or one booking.
    plan_itinerary = compare + (1.5 if ev.route else 0) + (0.5 if ev.date_range else 0)
    if ev.route and ev.date_range and "HOTEL" in ev.biz_types:
        plan_itinerary += 2  # there and back, with a hotel: transport + hotel options
    booking = book + (2 if ev.biz_types else 0) + (1 if ev.route else 0) + (0.5 if ev.date else 0)
    if compare >= 4 and ("HOTEL" in ev.biz_types or ev.route or compare >= 6) and plan_itinerary >= booking - 2:
        return Decision("PLAN_ITINERARY")
    if ROUND_TRIP.search(text) and ev.route and ev.date_range and not BOOK_VERB.search(text):
        return Decision("PLAN_ITINERARY")  # "roundtrip flights from A to B Thursday to Monday": the options compared
    if plan_itinerary >= 6 and plan_itinerary > booking:
        return Decision("PLAN_ITINERARY")
    if ev.biz_types and (book >= 1 or ev.route or ev.date or ev.destination) and plan < 3:
        return Decision("BOOK")
    if book >= 4 and ev.biz_types:
        return Decision("BOOK")
    if book >= 4 and ev.route and plan < 3:
        return Decision("BOOK")  # "book a first class ticket from Beijing to Shanghai": flight or train is asked
    if book >= 4 and max(plan, recommend, compare) < 3 and search < 2 and BARE_BOOKING.search(text):
        return Decision("BOOK")  # "订票", "book a ticket": a booking begun with no details; what it is for is asked

    if (plan >= 3 and (ev.destination or ev.province or ev.days or plan >= 4 or ev.date or ev.route)) or (
        plan >= 2 and ev.days
    ):
        return Decision("MAKE_TRAVEL_PLAN")

    if recommend >= 3 and not ev.destination:
        if ev.province or CONDITIONS.search(text):
            return Decision("SEARCH_ACTIVITIES")  # "推荐一个门票20元以下的景点": conditions make it a search
        return Decision("RECOMMEND")

    travel_slots = ev.destination or ev.province or ev.budget or ev.days or ev.date
    if search >= 2 or recommend >= 3 or plan >= 3:
        strong = search >= 4 or recommend >= 3 or plan >= 3
        if pending_intent and not strong and ev.slots_only:
            return Decision(pending_intent, explicit=False)
        if travel_slots or search >= 2:
            return Decision("SEARCH_ACTIVITIES", explicit=strong)
    if ev.biz_types and book >= 1:
        return Decision("BOOK")
    if travel_slots and (ev.slots_only or ev.destination or ev.province or ev.budget):
        if pending_intent:
            return Decision(pending_intent, explicit=False)
        return Decision("SEARCH_ACTIVITIES", explicit=False)
    answers = ev.preferences or ev.sort or ev.pick or ev.passengers or ev.reason or ev.excluded or ev.origin
    if pending_intent and ev.slots_only and (ev.biz_types or travel_slots or answers):
        return Decision(pending_intent, explicit=False)
    if ev.slots_only and (ev.pick or ev.passengers or ev.preferences or ev.sort):
        return Decision("BOOK", explicit=False)  # "第二个", "张三 138…", "换成下午的": choosing or booking
    if ev.excluded and ev.slots_only:
        return Decision("SEARCH_ACTIVITIES", explicit=False)  # "not Sanya": the search goes on without it
    if ev.excluded and not ev.destination:
        return Decision("RECOMMEND", explicit=False)  # "除了北京上海，别的城市都行": somewhere else
    if ev.reason and (ev.slots_only or aftersale):
        return Decision("AFTERSALE", action or "REFUND", explicit=False)  # "质量问题", "changed my mind"
    return Decision("OUT_OF_SCOPE")


def aftersale_action(text: str) -> str | None:
    if RETURN_GOODS.search(text):
        return "RETURN"
    if re.search(r"退款|退钱|退费|钱|refund|money", text, re.I):
        return "REFUND"
    if re.search(r"\breturn\b", text, re.I):
        return "RETURN"
    return None


# -- a second request in the same sentence -------------------------------------------------------------------------
# "帮我规划三天丽江行程，顺便查天气", "大理天气怎么样，另外推荐点活动", "plan 3 days in Lijiang and check the weather":
# a joining word (顺便 anywhere; 另外 / 同时 / 还有 / 再 … at the start of a clause; "and" / "also" / "plus" before
# a request verb) splits the sentence into parts. A part is a request of its own only when its own words carry a
# strong cue of an intent (a statement such as "下周末去婺源拍照" is context, not a request).

JOIN_RE = re.compile(
    r"[,，;；、]?\s*(?:顺便|顺带|顺道|顺手)(?:也|再|帮我|给我|还)?"
    r"|[,，;；。.!！?？]\s*(?:另外|同时|并且|而且|还有|然后|再|也|还要|还想|还得|最后)(?:也|再|帮我|给我|请)?"
    r"|(?:,\s*|\s+)(?:and(?:\s+also|\s+then)?|also|plus|then|as well as)\s+"
    r"(?=(?:please\s+)?(?:check|tell|show|find|recommend|suggest|book|get|look|plan|search|compare|see|give|"
    r"let me know|what|how|is|will|any)\b)"
    r"|[,;.]\s*(?:also|plus|then|and)\b"
    r"|[?？!！。]\s*(?=\S)",
    re.IGNORECASE,
)

ASK_CUES = _cues((r"看看|查查?|找找?|搜|有什么|有哪些|有啥|\b(?:show|find|search|what|any)\b", 1))

# How strong a part's own cue must be for it to count as a request of that intent.
REQUEST_CUES: dict[str, tuple[list[tuple[Cue, ...]], float]] = {
    "QUERY_WEATHER": ([WEATHER_CUES], 4),
    "RECOMMEND": ([RECOMMEND_CUES], 3),
    "SEARCH_ACTIVITIES": ([SEARCH_CUES + ASK_CUES, RECOMMEND_CUES], 3),
    "MAKE_TRAVEL_PLAN": ([PLAN_CUES], 3),
    "PLAN_ITINERARY": ([COMPARE_CUES], 4),
    "BOOK": ([BOOK_CUES], 3),
    "CANCEL_BOOKING": ([CANCEL_CUES], 4),
    "AFTERSALE": ([AFTERSALE_CUES], 3),
    "QUERY_PROGRESS": ([PROGRESS_STRONG], 4),
}


def split_requests(text: str) -> list[tuple[int, int]]:
    """The (start, end) spans of the parts a joining word separates; one span for an ordinary sentence."""
    spans, start = [], 0
    for match in JOIN_RE.finditer(text):
        if match.start() > start:
            spans.append((start, match.start()))
        start = match.end()
    if start < len(text):
        spans.append((start, len(text)))
    return spans or [(0, len(text))]


def is_request(text: str, intent: str) -> bool:
    """Whether a part's own words ask for `intent` strongly enough to be a request of its own."""
    cue_lists, threshold = REQUEST_CUES.get(intent, ([], float("inf")))
    return any(_score(cues, text) >= threshold for cues in cue_lists)
